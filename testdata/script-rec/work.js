// work.js - perfdata's script tests: a short node workload (record.sh: --perf-basic-prof for
// node.data, --perf-prof for inject-jit.data) whose hot functions V8 compiles.
function leaf(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x + i * i) % 1000003;
  return x;
}
function middle(d, n) {
  return d === 0 ? leaf(n) : middle(d - 1, n) + d;
}
const rounds = Number(process.argv[2] || 3000);
let s = 0;
for (let i = 0; i < rounds; i++) s += middle(i % 8, 20000);
console.log(s, JSON.stringify({ a: [1, 2, 3] }).length);
