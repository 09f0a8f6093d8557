/* How fast data written on one core is read on the other: one thread writes 256 KiB chunks of
 * a 4 MiB ring, the other reads them (1 GiB in all), as perfdata's reading thread hands batches
 * to its folding thread. Prints the seconds it took and GB/s.
 *
 * On this project's 2-vCPU VM it is bimodal over minutes (~0.04 s or ~0.13 s): the host places
 * the two vCPUs near each other or not, and every two-thread perfdata command that hands data
 * across slows down with it (bench/pprof.sh labels its runs by this).
 *
 *   cc -O2 -pthread -o bench/work/crosscore bench/crosscore.c && bench/work/crosscore */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define WORDS (256 * 1024 / 8)
#define CHUNKS 16
#define ROUNDS 4000L

static unsigned long ring[CHUNKS][WORDS];
static atomic_long produced, consumed;
static unsigned long sum;

static void *consume(void *arg) {
    unsigned long s = 0;
    (void)arg;
    for (long i = 0; i < ROUNDS; i++) {
        while (atomic_load(&produced) <= i) {
        }
        for (int j = 0; j < WORDS; j++) s += ring[i % CHUNKS][j];
        atomic_store(&consumed, i + 1);
    }
    sum = s;
    return NULL;
}

int main(void) {
    struct timespec a, b;
    pthread_t t;
    clock_gettime(CLOCK_MONOTONIC, &a);
    pthread_create(&t, NULL, consume, NULL);
    for (long i = 0; i < ROUNDS; i++) {
        while (i - atomic_load(&consumed) >= CHUNKS - 1) {
        }
        for (int j = 0; j < WORDS; j++) ring[i % CHUNKS][j] = (unsigned long)(i + j);
        atomic_store(&produced, i + 1);
    }
    pthread_join(t, NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    printf("%.3f %.1f\n", s, (double)ROUNDS * WORDS * 8 / s / 1e9);
    return sum == 1;
}
