1 1
const dtrace

