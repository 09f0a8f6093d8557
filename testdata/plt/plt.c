/* Calls three libc functions through the PLT in a tight loop, so that samples land in the PLT
 * entries (record.sh builds it -no-pie and PIE: plt-nopie, plt-pie). -fno-builtin keeps the calls. */
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    char buf[64] = "perf names the PLT";
    long sum = 0;
    long rounds = argc > 1 ? atol(argv[1]) : 1000000;
    for (long i = 0; i < rounds; i++) {
        sum += abs((int)(i & 7) - 3);
        sum += (long)strlen(buf);
        memset(buf + 32, (int)i, 8);
    }
    return sum == 42;
}
