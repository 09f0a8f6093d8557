// work.cc: the C++ workload of testdata/cxx-fp.data and cxx-dwarf.data (testdata/cxx/record.sh).
// Every sampled stack passes through names that C++ demangling and inline unwinding get wrong:
// templates with integer literals (0u, -1l), lambdas in functions and in templates,
// std::function, std::sort / std::map / std::unordered_map / std::string (libstdc++ frames, in
// the binary and in libstdc++.so), function pointers as template arguments, abi tags
// (std::__cxx11::string), variadic packs (and an empty one), a virtual call, forced inline and
// noinline functions, a recursive template, operator overloads, decltype, an anonymous namespace.
//
//   work ROUNDS    (one round is about 1 ms of CPU)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#define NOINLINE __attribute__((noinline))
#define INLINE inline __attribute__((always_inline))

namespace work {

volatile uint64_t sink;

// A busy loop that stays out of line (the leaf of most stacks).
NOINLINE uint64_t spin(uint64_t x, unsigned n) {
	for (unsigned i = 0; i < n * 4; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		asm volatile("" : "+r"(x));
	}
	return x;
}

// Forced inline: only DWARF knows it is there.
INLINE uint64_t mix(uint64_t a, uint64_t b) {
	return spin(a ^ (b << 7), 200) + b;
}

// Integer literals in template arguments: literal<0u, -1l> (`Lj0E`, `Lln1E`).
template <unsigned N, long M>
NOINLINE uint64_t literal(uint64_t x) {
	return mix(x + N, static_cast<uint64_t>(M));
}

// A function pointer as a template argument: apply<&work::step>.
NOINLINE uint64_t step(uint64_t x) {
	return spin(x, 300);
}
template <uint64_t (*F)(uint64_t)>
NOINLINE uint64_t apply(uint64_t x) {
	return F(x) + F(x + 1);
}

// Variadic packs: sum_all<int, long, unsigned int, double>, and first<int> with an empty pack.
template <class... Ts>
NOINLINE uint64_t sum_all(Ts... ts) {
	return spin((static_cast<uint64_t>(ts) + ... + 0), 250);
}
template <class T, class... Rest>
NOINLINE uint64_t first(T t, Rest... rest) {
	return spin(static_cast<uint64_t>(t) + sizeof...(rest), 150);
}

// decltype in the signature.
template <class T>
NOINLINE auto twice(T t) -> decltype(t + t) {
	return static_cast<T>(spin(static_cast<uint64_t>(t), 150)) + t;
}

// A recursive template: Rec<4>::go -> Rec<3>::go -> ... -> Rec<0>::go.
template <int N>
struct Rec {
	NOINLINE static uint64_t go(uint64_t x) {
		return Rec<N - 1>::go(x * 3 + N) + spin(x, 40);
	}
};
template <>
struct Rec<0> {
	NOINLINE static uint64_t go(uint64_t x) {
		return literal<0u, -1l>(x) + apply<&step>(x) + sum_all(1, 2l, 3u, 4.0) + first(5) + twice(6);
	}
};

// A virtual call through a base pointer the compiler cannot see through.
struct Shape {
	virtual ~Shape() = default;
	virtual uint64_t area(uint64_t scale) const = 0;
};
struct Square : Shape {
	uint64_t side;
	explicit Square(uint64_t s) : side(s) {}
	NOINLINE uint64_t area(uint64_t scale) const override {
		return spin(side * side * scale, 300);
	}
};
struct Circle : Shape {
	uint64_t r;
	explicit Circle(uint64_t r) : r(r) {}
	NOINLINE uint64_t area(uint64_t scale) const override {
		return spin(3 * r * r * scale, 300);
	}
};

// Operator overloads.
struct Vec2 {
	uint64_t x, y;
	NOINLINE Vec2 operator+(const Vec2& o) const {
		return {spin(x + o.x, 60), y + o.y};
	}
	NOINLINE bool operator<(const Vec2& o) const {
		return (x ^ (x >> 13)) < (o.x ^ (o.x >> 13));
	}
	NOINLINE uint64_t operator()(uint64_t k) const {
		return spin(x * k + y, 200);
	}
};

// A function returning std::string: `make_key[abi:cxx11]`.
NOINLINE std::string make_key(uint64_t n) {
	std::string s = "key-";
	for (int i = 0; i < 6; i++) {
		s += static_cast<char>('a' + (n >> (i * 4)) % 26);
	}
	return s;
}

// A lambda in a template: tally<std::map<...>>(...)::{lambda(...)#1}.
template <class Map>
NOINLINE uint64_t tally(Map& m, unsigned n, uint64_t seed) {
	auto add = [&m](uint64_t k) __attribute__((noinline)) {
		m[make_key(k)] += spin(k, 20);
	};
	for (unsigned i = 0; i < n; i++) {
		add(seed + i * 7919);
	}
	uint64_t t = 0;
	for (const auto& kv : m) {
		t += kv.second;
	}
	return t;
}

}  // namespace work

namespace {

using namespace work;

// std::sort with operator< and with a lambda comparator; std::function holding a lambda.
NOINLINE uint64_t sorting(unsigned n, uint64_t seed) {
	std::vector<Vec2> v;
	for (unsigned i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ull + 1;
		v.push_back({seed >> 11, i});
	}
	std::sort(v.begin(), v.end());
	std::sort(v.begin(), v.end(), [](const Vec2& a, const Vec2& b) { return a.y > b.y; });
	std::function<uint64_t(uint64_t)> f = [&v](uint64_t k) __attribute__((noinline)) {
		return (v[k % v.size()] + v[(k + 1) % v.size()]).x;
	};
	uint64_t t = 0;
	for (unsigned i = 0; i < 64; i++) {
		t += f(i);
	}
	return t + v[0](3);
}

NOINLINE uint64_t containers(unsigned round) {
	std::map<std::string, uint64_t> ordered;
	std::unordered_map<std::string, uint64_t> hashed;
	return tally(ordered, 24, round) + tally(hashed, 24, round * 3);
}

NOINLINE uint64_t shapes(const std::vector<std::unique_ptr<Shape>>& all, unsigned round) {
	uint64_t t = 0;
	for (const auto& s : all) {
		t += s->area(round);
	}
	return t;
}

}  // namespace

int main(int argc, char** argv) {
	unsigned rounds = argc > 1 ? static_cast<unsigned>(atoi(argv[1])) : 1000;
	std::vector<std::unique_ptr<Shape>> all;
	for (int i = 0; i < 4 + argc % 2; i++) {
		if (i % 2) {
			all.push_back(std::make_unique<Square>(i));
		} else {
			all.push_back(std::make_unique<Circle>(i));
		}
	}
	// A lambda in main, called through a plain function pointer.
	uint64_t (*phase)(unsigned) = [](unsigned r) -> uint64_t {
		return Rec<4>::go(r);
	};
	uint64_t t = 0;
	for (unsigned r = 0; r < rounds; r++) {
		t += phase(r);
		t += sorting(200, r);
		t += containers(r);
		t += shapes(all, r);
	}
	sink = t;
	printf("%llu\n", static_cast<unsigned long long>(t % 1000));
	return 0;
}
