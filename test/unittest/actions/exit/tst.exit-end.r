one
two
end

