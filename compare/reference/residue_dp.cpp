// residue_dp N [M]: f(N) = c(N, 0), the number of winning first moves of the Fibonacci tree game,
// as residues only. Without M it prints f(N) mod 10^18 (the last 18 digits) and f(N) mod 998244353
// on one line, separated by a space; with M (2 <= M <= 10^18) it prints f(N) mod M.
//
// How: one pass over the layers k = 2..N of the recurrence (docs/math.md), with L = 1 + G(k-1) and
// R = 1 + G(k-2):
//     c(k, g) = [g == R] + [k >= 3][g == L] + c(k-1, (g xor R) - 1) + c(k-2, (g xor L) - 1),
// every layer whole over the window g < W of window.hpp (exact for g = 0), three rolling layers of
// W residues per modulus, c(0, .) = c(1, .) = 0. Work N x W additions; memory 3 W words a modulus.
#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "window.hpp"

namespace {

// c(n, 0) mod each of `moduli` (each from 2 to 10^18, so that three residues sum below 2^64).
std::vector<std::uint64_t> winning_moves_mod(std::uint64_t n, const std::vector<std::uint64_t>& moduli) {
    const std::vector<std::uint64_t> edge = reference::edge_values(n);
    const std::uint64_t w = reference::window(edge);
    const std::size_t count = moduli.size();
    // layer k - 2, k - 1 and k; each holds W residues per modulus, g-major
    std::vector<std::uint64_t> older(w * count, 0), old(w * count, 0), cur(w * count, 0);
    for (std::uint64_t k = 2; k <= n; k++) {
        const std::uint64_t left = edge[k - 1], right = edge[k - 2];
        for (std::uint64_t g = 0; g < w; g++) {
            const std::uint64_t direct = (g == right) + (k >= 3 && g == left);
            const std::uint64_t via_left = g ^ right, via_right = g ^ left;
            for (std::size_t i = 0; i < count; i++) {
                const std::uint64_t m = moduli[i];
                std::uint64_t s = via_left >= 1 ? old[(via_left - 1) * count + i] : 0;
                s += via_right >= 1 ? older[(via_right - 1) * count + i] : 0;
                if (s >= m) s -= m;
                s += direct;
                if (s >= m) s -= m;
                cur[g * count + i] = s;
            }
        }
        std::swap(older, old);
        std::swap(old, cur);
    }
    // after the last swap `old` holds layer n (all zero for n < 2: T(0) and T(1) have no moves)
    return std::vector<std::uint64_t>(old.begin(), old.begin() + count);
}

}  // namespace

int main(int argc, char** argv) {
    const char* usage = "residue_dp N [M] (N from 0 to 1000000, M from 2 to 10^18)";
    if (argc < 2 || argc > 3) reference::usage_exit(usage);
    const std::uint64_t n = reference::parse_or_exit("N", argv[1], 0, reference::max_n);
    std::vector<std::uint64_t> moduli = {1000000000000000000ULL, 998244353ULL};
    if (argc == 3) moduli = {reference::parse_or_exit("M", argv[2], 2, 1000000000000000000ULL)};
    const std::vector<std::uint64_t> residues = winning_moves_mod(n, moduli);
    for (std::size_t i = 0; i < residues.size(); i++)
        std::printf(i == 0 ? "%llu" : " %llu", static_cast<unsigned long long>(residues[i]));
    std::printf("\n");
    return 0;
}
