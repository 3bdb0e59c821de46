/* Plain C Glicko over rating periods (Glickman 1999), the same algorithm as fastrate's
 * Glicko kernel: inactivity growth applied when a player next plays, one pass over the
 * games of a period accumulating the sums with the pre-period values, then one update
 * per player who played.
 *
 *   glicko DIR N_PLAYERS N_GAMES C MAX_RD REPEATS
 *
 * reads DIR/{white,black,period}.bin (int64) and DIR/score.bin (float64) (period
 * nondecreasing); initial rating 1500, RD = MAX_RD. Prints "games_per_s X",
 * "seconds X" (best of REPEATS) and writes DIR/rating_c.bin and DIR/rd_c.bin.
 * Build: cc -O2 -o glicko glicko.c -lm */
#include "common.h"
#include <math.h>

int main(int argc, char **argv) {
    if (argc != 7) { fprintf(stderr, "usage: glicko DIR N_PLAYERS N_GAMES C MAX_RD REPEATS\n"); return 2; }
    const char *dir = argv[1];
    size_t np = (size_t)atoll(argv[2]), n = (size_t)atoll(argv[3]);
    double c = atof(argv[4]), max_rd = atof(argv[5]);
    int repeats = atoi(argv[6]);
    const int64_t *white = read_array(dir, "white.bin", 8, n);
    const int64_t *black = read_array(dir, "black.bin", 8, n);
    const double *score = read_array(dir, "score.bin", 8, n);
    const int64_t *period = read_array(dir, "period.bin", 8, n);
    double *rating = malloc(np * 8), *rd = malloc(np * 8), *qg = malloc(np * 8),
           *kk = malloc(np * 8), *rd2 = malloc(np * 8), *dsum = malloc(np * 8),
           *rsum = malloc(np * 8), *pred = malloc(n * 8);
    int64_t *games = malloc(np * 8), *last = malloc(np * 8), *stamp = malloc(np * 8),
            *touched = malloc(np * 8);
    const double q = log(10.0) / 400.0, pi = 3.14159265358979323846;
    const double k3 = 3.0 * q * q / (pi * pi), c2 = c * c, max_rd2 = max_rd * max_rd;
    double best = 1e300;
    for (int r = 0; r < repeats; r++) {
        for (size_t j = 0; j < np; j++) {
            rating[j] = 1500.0; rd[j] = max_rd; games[j] = 0; last[j] = INT64_MIN; stamp[j] = -1;
        }
        double t0 = now_s();
        size_t lo = 0;
        int64_t k = 0;
        while (lo < n) {
            int64_t p = period[lo];
            size_t hi = lo;
            while (hi < n && period[hi] == p) hi++;
            size_t nt = 0;
            for (size_t i = lo; i < hi; i++) {
                int64_t pl[2] = {white[i], black[i]};
                for (int s = 0; s < 2; s++) {
                    int64_t x = pl[s];
                    if (stamp[x] != k) {
                        stamp[x] = k;
                        touched[nt++] = x;
                        double v = rd[x] * rd[x];
                        if (last[x] != INT64_MIN && p > last[x]) {
                            v = v + c2 * (double)(p - last[x]);
                            if (v > max_rd2) v = max_rd2;
                        }
                        rd2[x] = v;
                        kk[x] = k3 * v;
                        qg[x] = q / sqrt(1.0 + k3 * v);
                        dsum[x] = 0.0;
                        rsum[x] = 0.0;
                    }
                }
                int64_t a = pl[0], b = pl[1];
                double sc = score[i], diff = rating[a] - rating[b], ga = qg[a], gb = qg[b];
                double e_ab = 1.0 / (1.0 + exp(-gb * diff));
                double e_ba = 1.0 / (1.0 + exp(ga * diff));
                dsum[a] += gb * gb * e_ab * (1.0 - e_ab);
                rsum[a] += gb * (sc - e_ab);
                dsum[b] += ga * ga * e_ba * (1.0 - e_ba);
                rsum[b] += ga * ((1.0 - sc) - e_ba);
                pred[i] = 1.0 / (1.0 + exp(-q * diff / sqrt(1.0 + kk[a] + kk[b])));
                games[a] += 1;
                games[b] += 1;
            }
            for (size_t t = 0; t < nt; t++) {
                int64_t x = touched[t];
                double inv = 1.0 / rd2[x] + dsum[x];
                rating[x] += rsum[x] / inv;
                rd[x] = sqrt(1.0 / inv);
                last[x] = p;
            }
            lo = hi;
            k++;
        }
        double t = now_s() - t0;
        if (t < best) best = t;
    }
    printf("games_per_s %.6e\nseconds %.9f\n", (double)n / best, best);
    write_array(dir, "rating_c.bin", rating, 8, np);
    write_array(dir, "rd_c.bin", rd, 8, np);
    return 0;
}
