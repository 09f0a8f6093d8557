/* plt-edge: PLT calls as in plt.c, built with an IBT PLT (.plt and .plt.sec, -z ibtplt) and
 * -z now, plus edge.S's labels inside a function and code in .rodata past every symbol. */
#include <stdlib.h>
#include <string.h>

void run_labeled(long rounds);
void run_rodata(long rounds);

int main(int argc, char **argv) {
    char buf[64] = "perf names the PLT";
    long sum = 0;
    long rounds = argc > 1 ? atol(argv[1]) : 1000000;
    for (long i = 0; i < rounds; i++) {
        sum += abs((int)(i & 7) - 3);
        sum += (long)strlen(buf);
        memset(buf + 32, (int)i, 8);
    }
    run_labeled(rounds);
    run_rodata(rounds * 4);
    return sum == 42;
}
