/* Plain C Elo, game by game, constant K: the same arithmetic and the same memory
 * traffic as fastrate's branch-light Elo kernel (rating, games played and last period
 * per player; the pre-game expected score per game).
 *
 *   elo DIR N_PLAYERS N_GAMES K INITIAL REPEATS
 *
 * reads DIR/white.bin, DIR/black.bin (int64), DIR/score.bin (float64), DIR/period.bin
 * (int64); runs REPEATS times from fresh state, timing only the loop; prints
 * "games_per_s X" and "seconds X" (best run) and writes DIR/rating_c.bin.
 * Build: cc -O2 -o elo elo.c -lm */
#include "common.h"
#include <math.h>

int main(int argc, char **argv) {
    if (argc != 7) { fprintf(stderr, "usage: elo DIR N_PLAYERS N_GAMES K INITIAL REPEATS\n"); return 2; }
    const char *dir = argv[1];
    size_t np = (size_t)atoll(argv[2]), n = (size_t)atoll(argv[3]);
    double k = atof(argv[4]), initial = atof(argv[5]);
    int repeats = atoi(argv[6]);
    const int64_t *white = read_array(dir, "white.bin", 8, n);
    const int64_t *black = read_array(dir, "black.bin", 8, n);
    const double *score = read_array(dir, "score.bin", 8, n);
    const int64_t *period = read_array(dir, "period.bin", 8, n);
    double *rating = malloc(np * sizeof(double));
    int64_t *games = malloc(np * sizeof(int64_t));
    int64_t *last = malloc(np * sizeof(int64_t));
    double *pred = malloc(n * sizeof(double));
    const double factor = log(10.0) / 400.0;
    double best = 1e300;
    for (int r = 0; r < repeats; r++) {
        for (size_t j = 0; j < np; j++) { rating[j] = initial; games[j] = 0; last[j] = INT64_MIN; }
        double t0 = now_s();
        for (size_t i = 0; i < n; i++) {
            int64_t a = white[i], b = black[i];
            double d = rating[a] - rating[b];
            double e = 1.0 / (1.0 + exp(-d * factor));
            pred[i] = e;
            double diff = score[i] - e;
            rating[a] += k * diff;
            rating[b] -= k * diff;
            games[a] += 1;
            games[b] += 1;
            last[a] = period[i];
            last[b] = period[i];
        }
        double t = now_s() - t0;
        if (t < best) best = t;
    }
    printf("games_per_s %.6e\nseconds %.9f\n", (double)n / best, best);
    write_array(dir, "rating_c.bin", rating, 8, np);
    return 0;
}
