/* A call graph with a branch at every level: path k (k = 0..70) calls left() for its first k
   levels and right() below, so paths k and k + 1 part at level k and perf report -g nests 70
   branch levels (its graph printer keeps its bars in a 32-bit mask). */
volatile unsigned long sink;
__attribute__((noinline)) void leaf(void) { for (int i = 0; i < 20000; i++) sink += i; }
__attribute__((noinline)) void right(int n, int k);
__attribute__((noinline)) void left(int n, int k) {
	if (n == 0) leaf(); else if (70 - n < k) left(n - 1, k); else right(n - 1, k);
	sink++;
}
__attribute__((noinline)) void right(int n, int k) {
	if (n == 0) leaf(); else if (70 - n < k) left(n - 1, k); else right(n - 1, k);
	sink++;
}
int main(void) {
	for (long r = 0; r < 60000; r++) right(70, (int)(r % 71));
	return 0;
}
