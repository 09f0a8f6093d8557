/* deep.c - perfdata's script tests: a call chain deeper than perf's 127-frame default.
 * deep [DEPTH [ROUNDS]]: ROUNDS times, recurse DEPTH frames through dive() and spin at the bottom
 * (about 1 ms of CPU per round). Built `gcc -O1 -g -fno-omit-frame-pointer` (record.sh), so
 * every dive() frame is a frame-pointer frame; the work after the recursive call keeps the
 * compiler from turning it into a loop or a tail call. */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long bottom(unsigned long n)
{
	unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		sink = x += i * i;
	return x;
}

__attribute__((noinline)) static unsigned long dive(int depth, unsigned long n)
{
	unsigned long r;
	if (depth == 0)
		return bottom(n);
	r = dive(depth - 1, n);
	sink += r;
	return r + (unsigned long)depth;
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 200;
	int rounds = argc > 2 ? atoi(argv[2]) : 100;
	for (int i = 0; i < rounds; i++)
		dive(depth, 400000);
	return 0;
}
