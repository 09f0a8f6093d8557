/*
 * spin.c - small deterministic workload for the perfdata test corpus.
 *
 * Build: gcc -O1 -g -fno-omit-frame-pointer -o bin/spin spin.c
 * Usage: spin [ROUNDS] [CHILDREN]
 *   ROUNDS   number of work rounds (default 100); one round is roughly 1 ms
 *            of CPU time: main -> outer -> middle -> leaf busy loops, plus
 *            io_work (write/read/unlink a temp file, malloc + touch pages)
 *            every 10th round.
 *   CHILDREN number of child processes to fork (default 0); each child runs
 *            ROUNDS/2 rounds, then exits; the parent waits for them.
 *
 * Output is deterministic (a checksum line), so the workload can be compared
 * across runs.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < 40000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink += x;
	return x;
}

__attribute__((noinline)) static unsigned long middle(unsigned long n)
{
	unsigned long x = 0;
	int i;

	for (i = 0; i < 4; i++)
		x ^= leaf(n + i);
	return x;
}

__attribute__((noinline)) static unsigned long outer(unsigned long n)
{
	unsigned long x = 0, i;

	/* a bit of self time in outer() too */
	for (i = 0; i < 20000; i++)
		x += i ^ n;
	x ^= middle(n);
	x ^= middle(n + 7);
	return x;
}

__attribute__((noinline)) static unsigned long io_work(unsigned long n)
{
	char path[] = "/tmp/spin-XXXXXX";
	char buf[4096];
	unsigned long x = 0;
	size_t sz = 256 * 1024, i;
	char *mem;
	int fd;

	/* syscalls: openat/write/lseek/read/close/unlink */
	fd = mkstemp(path);
	if (fd >= 0) {
		memset(buf, (int)(n & 0xff), sizeof(buf));
		for (i = 0; i < 8; i++)
			if (write(fd, buf, sizeof(buf)) < 0)
				break;
		lseek(fd, 0, SEEK_SET);
		while (read(fd, buf, sizeof(buf)) > 0)
			x += (unsigned char)buf[0];
		close(fd);
		unlink(path);
	}
	fd = open("/proc/self/stat", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf)) > 0)
			x += (unsigned char)buf[0];
		close(fd);
	}

	/* page faults: fresh malloc'd memory (above mmap threshold), touched */
	mem = malloc(sz);
	if (mem) {
		for (i = 0; i < sz; i += 4096)
			mem[i] = (char)(i + n);
		for (i = 0; i < sz; i += 4096)
			x += (unsigned char)mem[i];
		free(mem);
	}
	return x;
}

static unsigned long run(unsigned long rounds, unsigned long seed)
{
	unsigned long x = 0, r;

	for (r = 0; r < rounds; r++) {
		x ^= outer(seed + r);
		if (r % 10 == 0)
			x += io_work(r);
	}
	return x;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 0) : 100;
	long children = argc > 2 ? strtol(argv[2], NULL, 0) : 0;
	unsigned long x;
	long c;

	for (c = 0; c < children; c++) {
		pid_t pid = fork();

		if (pid == 0) {
			x = run(rounds / 2, 1000 + c);
			printf("child %ld: %lx\n", c, x);
			fflush(stdout);
			_exit(0);
		}
	}
	x = run(rounds, 1);
	while (children-- > 0)
		wait(NULL);
	printf("spin %lu: %lx\n", rounds, x);
	return 0;
}
