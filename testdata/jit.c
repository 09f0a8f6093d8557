/* jit: a stand-in for a JIT compiler. Copies two tiny x86-64 functions into an anonymous
 * executable mapping, describes them in /tmp/perf-PID.map (perf's JIT symbol file format:
 * "START SIZE NAME" in hex), and runs them with frame pointers so perf -g walks through them.
 *   jit_inner(n):            busy loop of n iterations
 *   jit_outer(n, inner):     calls inner(n)
 * Usage: jit ROUNDS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const unsigned char inner_code[] = {
	0x55,             /* push rbp */
	0x48, 0x89, 0xe5, /* mov rbp, rsp */
	0x48, 0xff, 0xcf, /* 1: dec rdi */
	0x75, 0xfb,       /* jnz 1b */
	0x5d,             /* pop rbp */
	0xc3,             /* ret */
};
static const unsigned char outer_code[] = {
	0x55,             /* push rbp */
	0x48, 0x89, 0xe5, /* mov rbp, rsp */
	0xff, 0xd6,       /* call rsi */
	0x5d,             /* pop rbp */
	0xc3,             /* ret */
};

typedef void (*inner_fn)(long);
typedef void (*outer_fn)(long, inner_fn);

__attribute__((noinline)) static void run(outer_fn outer, inner_fn inner, long rounds)
{
	for (long i = 0; i < rounds; i++) {
		outer(200000, inner);
		inner(100000);
	}
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	unsigned char *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem + 0x100, inner_code, sizeof inner_code);
	memcpy(mem + 0x200, outer_code, sizeof outer_code);
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", getpid());
	FILE *f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_inner\n", (unsigned long)(mem + 0x100), sizeof inner_code);
	fprintf(f, "%lx %zx Ljava/lang/Thread;::run(I)V\n", (unsigned long)(mem + 0x200), sizeof outer_code);
	fclose(f);
	run((outer_fn)(mem + 0x200), (inner_fn)(mem + 0x100), rounds);
	return 0;
}
