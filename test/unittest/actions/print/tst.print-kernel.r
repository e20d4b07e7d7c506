struct load_weight {
    unsigned long weight = N
    u32 inv_weight = N
}

