/* The minimal C Elo loop: one rating array, exp, two updates; no per-game output and no
 * other per-player state. The yardstick of fastrate's final-ratings path
 * (elo.rate(..., predictions=False)), which must also count games played beside it.
 *
 *   elo_ratings_only DIR N_PLAYERS N_GAMES K INITIAL REPEATS
 *
 * reads DIR/white.bin, DIR/black.bin (int64), DIR/score.bin (float64); runs REPEATS
 * times from fresh ratings, timing only the loop; prints "games_per_s X" and
 * "seconds X" (best run) and writes DIR/rating_c.bin.
 * Build: cc -O2 -o elo_ratings_only elo_ratings_only.c -lm */
#include "common.h"
#include <math.h>

int main(int argc, char **argv) {
    if (argc != 7) {
        fprintf(stderr, "usage: elo_ratings_only DIR N_PLAYERS N_GAMES K INITIAL REPEATS\n");
        return 2;
    }
    const char *dir = argv[1];
    size_t np = (size_t)atoll(argv[2]), n = (size_t)atoll(argv[3]);
    double k = atof(argv[4]), initial = atof(argv[5]);
    int repeats = atoi(argv[6]);
    const int64_t *white = read_array(dir, "white.bin", 8, n);
    const int64_t *black = read_array(dir, "black.bin", 8, n);
    const double *score = read_array(dir, "score.bin", 8, n);
    double *rating = malloc(np * sizeof(double));
    const double factor = log(10.0) / 400.0;
    double best = 1e300;
    for (int r = 0; r < repeats; r++) {
        for (size_t j = 0; j < np; j++) rating[j] = initial;
        double t0 = now_s();
        for (size_t i = 0; i < n; i++) {
            int64_t a = white[i], b = black[i];
            double e = 1.0 / (1.0 + exp(-(rating[a] - rating[b]) * factor));
            double diff = score[i] - e;
            rating[a] += k * diff;
            rating[b] -= k * diff;
        }
        double t = now_s() - t0;
        if (t < best) best = t;
    }
    printf("games_per_s %.6e\nseconds %.9f\n", (double)n / best, best);
    write_array(dir, "rating_c.bin", rating, 8, np);
    return 0;
}
