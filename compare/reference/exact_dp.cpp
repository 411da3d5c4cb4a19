// exact_dp N: f(N) = c(N, 0), the number of winning first moves of the Fibonacci tree game,
// exactly: every decimal digit on one line.
//
// How: the naive way on GMP. One pass over the layers k = 2..N of the recurrence (docs/math.md),
// with L = 1 + G(k-1) and R = 1 + G(k-2):
//     c(k, g) = [g == R] + [k >= 3][g == L] + c(k-1, (g xor R) - 1) + c(k-2, (g xor L) - 1),
// every layer whole over the window g < W of window.hpp (exact for g = 0), each count an mpz_t,
// three rolling layers, c(0, .) = c(1, .) = 0. No pruning to the states the target needs and no
// limb layout of its own: 2 N W mpz_add calls on numbers of up to about 0.694 N bits.
#include <gmp.h>

#include <cstdint>
#include <cstdio>
#include <utility>
#include <vector>

#include "window.hpp"

namespace {

// One layer c(k, g), g < W, as GMP integers (zero when made).
class Layer {
  public:
    explicit Layer(std::uint64_t w) : counts_(w) {
        for (auto& z : counts_) mpz_init(&z);
    }
    ~Layer() {
        for (auto& z : counts_) mpz_clear(&z);
    }
    Layer(const Layer&) = delete;
    Layer& operator=(const Layer&) = delete;

    mpz_ptr at(std::uint64_t g) { return &counts_[g]; }

  private:
    std::vector<__mpz_struct> counts_;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) reference::usage_exit("exact_dp N (N from 0 to 1000000)");
    const std::uint64_t n = reference::parse_or_exit("N", argv[1], 0, reference::max_n);
    const std::vector<std::uint64_t> edge = reference::edge_values(n);
    const std::uint64_t w = reference::window(edge);
    Layer a(w), b(w), c(w);
    Layer *older = &a, *old = &b, *cur = &c;  // layers k - 2, k - 1, k
    for (std::uint64_t k = 2; k <= n; k++) {
        const std::uint64_t left = edge[k - 1], right = edge[k - 2];
        for (std::uint64_t g = 0; g < w; g++) {
            mpz_ptr z = cur->at(g);
            mpz_set_ui(z, (g == right) + (k >= 3 && g == left));
            const std::uint64_t via_left = g ^ right, via_right = g ^ left;
            if (via_left >= 1) mpz_add(z, z, old->at(via_left - 1));
            if (via_right >= 1) mpz_add(z, z, older->at(via_right - 1));
        }
        std::swap(older, old);
        std::swap(old, cur);
    }
    // `old` holds layer n (all zero for n < 2: T(0) and T(1) have no moves)
    mpz_out_str(stdout, 10, old->at(0));
    std::printf("\n");
    return 0;
}
