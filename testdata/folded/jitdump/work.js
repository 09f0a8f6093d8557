// perfdata jitdump test workload: recursion (optimized by TurboFan), array callbacks and string
// building (interpreted and baseline code), for about a second.
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sumSquares(xs) { return xs.map((x) => x * x).reduce((a, b) => a + b, 0); }
function words(n) { let s = ""; for (let i = 0; i < n; i++) s += String.fromCharCode(97 + (i % 26)); return s.length; }
function round() { return fib(18) + sumSquares([1, 2, 3, 4, 5, 6, 7, 8]) + words(300); }
const end = Date.now() + 1000;
let total = 0;
while (Date.now() < end) total += round();
console.log(total > 0 ? "ok" : "?");
