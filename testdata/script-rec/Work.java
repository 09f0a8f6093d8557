// Work.java - perfdata's script tests: a short JVM workload whose hot methods get JIT-compiled
// (record.sh runs it with -XX:+DumpPerfMapAtExit, so /tmp/perf-PID.map names the compiled code).
public class Work {
    static long leaf(long n) {
        long x = 0;
        for (long i = 0; i < n; i++) x += i * i ^ (x >>> 3);
        return x;
    }

    static long middle(int d, long n) {
        return d == 0 ? leaf(n) : middle(d - 1, n) + d;
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        long s = 0;
        for (int i = 0; i < rounds; i++) s += middle(i % 8, 20000);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 20000; i++) b.append(i % 10);
        System.out.println(s + " " + b.length());
    }
}
