tick 1 after 1 query-done
tick 1 after 2 query-done
tick 1 after 3 query-done

