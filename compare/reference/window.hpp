// What the two reference programs share: reading n from the command line, the edge values
// 1 + G(k) of the Fibonacci trees, and the window of g that holds every state c(n, 0) needs.
//
// G(0) = -1, G(1) = 0, G(k) = (1 + G(k-1)) xor (1 + G(k-2)) (docs/math.md). Let W be the smallest
// power of two above every edge value 1 + G(k), k <= n. For g < W the recurrence reads
// c(k-1, (g xor R) - 1) and c(k-2, (g xor L) - 1) with R, L < W, so g xor R and g xor L are below W
// too: the counts c(k, g), g < W, of every layer depend only on counts below W. A layer DP over
// [0, W) is therefore exact for c(n, 0), where one cut at g <= 2n is not (at n = 20000 it loses
// states the answer needs).
#ifndef FIBTREE_REFERENCE_WINDOW_HPP
#define FIBTREE_REFERENCE_WINDOW_HPP

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace reference {

// The largest n the programs take: their work is n x W steps, about n^2.
constexpr std::uint64_t max_n = 1000000;

// Parses `text` as a whole number from `low` to `high` (decimal digits only), or prints a one-line
// error naming `name` and exits with status 2.
inline std::uint64_t parse_or_exit(const char* name, const char* text, std::uint64_t low, std::uint64_t high) {
    const std::string s(text);
    std::uint64_t value = 0;
    bool ok = !s.empty() && s.size() <= 19;
    for (char ch : s) {
        if (ch < '0' || ch > '9') {
            ok = false;
            break;
        }
        value = value * 10 + static_cast<std::uint64_t>(ch - '0');
    }
    if (!ok || value < low || value > high) {
        std::fprintf(stderr, "error: %s: expected a whole number from %llu to %llu, got '%s'\n", name,
                     static_cast<unsigned long long>(low), static_cast<unsigned long long>(high), text);
        std::exit(2);
    }
    return value;
}

// Prints a one-line usage error and exits with status 2.
[[noreturn]] inline void usage_exit(const char* usage) {
    std::fprintf(stderr, "error: usage: %s\n", usage);
    std::exit(2);
}

// The edge values 1 + G(k) for k = 0..n (1 + G(0) = 0: an empty child contributes nothing).
inline std::vector<std::uint64_t> edge_values(std::uint64_t n) {
    std::vector<std::uint64_t> edge(n + 1);
    edge[0] = 0;
    if (n >= 1) edge[1] = 1;
    for (std::uint64_t k = 2; k <= n; k++) edge[k] = 1 + (edge[k - 1] ^ edge[k - 2]);
    return edge;
}

// The smallest power of two above every edge value: the window [0, W) of the layers.
inline std::uint64_t window(const std::vector<std::uint64_t>& edge) {
    std::uint64_t w = 1;
    for (std::uint64_t e : edge)
        while (w <= e) w <<= 1;
    return w;
}

}  // namespace reference

#endif
