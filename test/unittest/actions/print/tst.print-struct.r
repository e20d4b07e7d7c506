struct foo {
    int a = 0x1f
    char c = 'A'
    char [8] name = [ "hi" ]
    unsigned int bits :3 = 0x5
    long *p = 0
    struct in = {
        short x = 0x2
    }
    int [3] arr = [ 0, 0x7, 0 ]
}
int 0x5
char 'B'
string "str"
int [3] [ 0, 0x7, 0 ]


