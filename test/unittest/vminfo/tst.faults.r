as_fault
kernel_asflt
prot_fault

