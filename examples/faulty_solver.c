/* faulty_solver FAULT [N]: f(N), the winning first moves of the Fibonacci tree game, by a solver with
 * a known fault, for trying `fibtree stress` on. N is the second argument, or else read from
 * standard input. FAULT is one of
 *   cut         f(N) mod 998244353 with each layer k cut at g <= 2k, a guessed bound, where the states
 *               f(N) needs reach up to W below (docs/math.md);
 *   overflow32  f(N) counted in 32-bit words over the whole window g < W: from the first N where
 *               f(N) reaches 2^32 it prints f(N) mod 2^32 as if it were the whole count.
 *
 * How: the recurrence of docs/math.md over the layers k = 2..N, with L = 1 + G(k-1), R = 1 + G(k-2):
 *     c(k, g) = [g == R] + [k >= 3][g == L] + c(k-1, (g xor R) - 1) + c(k-2, (g xor L) - 1),
 * in three rolling layers of W counts, W the smallest power of two above every 1 + G(k), k <= N and
 * above 2N (so that both faults fit), a state outside its layer's window read as 0.
 *
 * Build: cc -O2 -o faulty_solver examples/faulty_solver.c */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define P 998244353u

int main(int argc, char **argv) {
    const int cut = argc >= 2 && strcmp(argv[1], "cut") == 0;
    const int valid = argc >= 2 && argc <= 3 && (cut || strcmp(argv[1], "overflow32") == 0);
    char *end = "";
    long n = -1;
    if (valid && argc == 3) n = strtol(argv[2], &end, 10);
    if (valid && argc == 2 && scanf("%ld", &n) != 1) n = -1;
    if (!valid || *end != '\0' || n < 0 || n > 1000000) {
        fprintf(stderr, "error: expected faulty_solver cut|overflow32 [N], N from 0 to 1000000 (else on standard input)\n");
        return 2;
    }
    long *edge = malloc(sizeof(long) * (n + 2)); /* edge[k] = 1 + G(k) */
    if (!edge) return 3;
    edge[0] = 0;
    edge[1] = 1;
    for (long k = 2; k <= n; k++) edge[k] = 1 + (edge[k - 1] ^ edge[k - 2]);
    long w = 2;
    for (long k = 0; k <= n; k++)
        while (w <= edge[k] || w <= 2 * n) w *= 2;
    uint32_t *older = calloc(w, 4), *old = calloc(w, 4), *cur = calloc(w, 4);
    if (!older || !old || !cur) return 3;
    for (long k = 2; k <= n; k++) {
        const long left = edge[k - 1], right = edge[k - 2];
        /* the highest g of layers k, k - 1 and k - 2: the cut, or the whole window */
        const long top = cut ? 2 * k : w - 1, top1 = cut ? 2 * (k - 1) : w - 1, top2 = cut ? 2 * (k - 2) : w - 1;
        for (long g = 0; g <= top; g++) {
            const long a = (g ^ right) - 1, b = (g ^ left) - 1;
            uint64_t s = (g == right) + (k >= 3 && g == left);
            if (a >= 0 && a <= top1) s += old[a];
            if (b >= 0 && b <= top2) s += older[b];
            cur[g] = cut ? (uint32_t)(s % P) : (uint32_t)s; /* overflow32: wraps at 2^32 */
        }
        uint32_t *t = older;
        older = old;
        old = cur;
        cur = t;
    }
    printf("%u\n", n >= 2 ? old[0] : 0u);
    return 0;
}
