wrapped, last 999, fewer than all
end

