/* Plain C Glicko-2 over rating periods (Glickman, "Example of the Glicko-2 system"),
 * the same algorithm as fastrate's Glicko-2 kernel: volatility by the Illinois
 * algorithm (tolerance EPSILON), inactivity growth phi^2 += sigma^2 per missed period
 * applied when a player next plays.
 *
 *   glicko2 DIR N_PLAYERS N_GAMES TAU EPSILON REPEATS
 *
 * reads DIR/{white,black,period}.bin (int64) and DIR/score.bin (float64); initial
 * rating 1500, RD 350, volatility 0.06. Prints "games_per_s X", "seconds X" (best of
 * REPEATS) and writes DIR/rating_c.bin, DIR/rd_c.bin and DIR/volatility_c.bin.
 * Build: cc -O2 -o glicko2 glicko2.c -lm */
#include "common.h"
#include <math.h>

static double f(double x, double delta2, double phi2, double v, double a, double tau2) {
    double ex = exp(x), w = phi2 + v + ex;
    return ex * (delta2 - phi2 - v - ex) / (2.0 * w * w) - (x - a) / tau2;
}

static double volatility(double sigma, double phi2, double v, double delta, double tau,
                         double eps, int max_it) {
    double a = log(sigma * sigma), tau2 = tau * tau, delta2 = delta * delta;
    double A = a, B;
    if (delta2 > phi2 + v) {
        B = log(delta2 - phi2 - v);
    } else {
        double k = 1.0;
        while (f(a - k * tau, delta2, phi2, v, a, tau2) < 0.0) k += 1.0;
        B = a - k * tau;
    }
    double fa = f(A, delta2, phi2, v, a, tau2), fb = f(B, delta2, phi2, v, a, tau2);
    int it = 0;
    while (fabs(B - A) > eps) {
        if (it >= max_it) break;
        it++;
        double C = A + (A - B) * fa / (fb - fa), fc = f(C, delta2, phi2, v, a, tau2);
        if (fc * fb <= 0.0) { A = B; fa = fb; } else { fa = fa / 2.0; }
        B = C;
        fb = fc;
    }
    return exp(A / 2.0);
}

int main(int argc, char **argv) {
    if (argc != 7) { fprintf(stderr, "usage: glicko2 DIR N_PLAYERS N_GAMES TAU EPSILON REPEATS\n"); return 2; }
    const char *dir = argv[1];
    size_t np = (size_t)atoll(argv[2]), n = (size_t)atoll(argv[3]);
    double tau = atof(argv[4]), eps = atof(argv[5]);
    int repeats = atoi(argv[6]);
    const int64_t *white = read_array(dir, "white.bin", 8, n);
    const int64_t *black = read_array(dir, "black.bin", 8, n);
    const double *score = read_array(dir, "score.bin", 8, n);
    const int64_t *period = read_array(dir, "period.bin", 8, n);
    double *rating = malloc(np * 8), *rd = malloc(np * 8), *vol = malloc(np * 8),
           *mu = malloc(np * 8), *gg = malloc(np * 8), *kk = malloc(np * 8),
           *phi2 = malloc(np * 8), *vsum = malloc(np * 8), *dsum = malloc(np * 8),
           *pred = malloc(n * 8);
    int64_t *games = malloc(np * 8), *last = malloc(np * 8), *stamp = malloc(np * 8),
            *touched = malloc(np * 8);
    const double scale = 173.7178, pi = 3.14159265358979323846, k3 = 3.0 / (pi * pi);
    double best = 1e300;
    for (int r = 0; r < repeats; r++) {
        for (size_t j = 0; j < np; j++) {
            rating[j] = 1500.0; rd[j] = 350.0; vol[j] = 0.06; games[j] = 0;
            last[j] = INT64_MIN; stamp[j] = -1;
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
                        double ph = rd[x] / scale, v2 = ph * ph;
                        if (last[x] != INT64_MIN && p - last[x] > 1)
                            v2 += (double)(p - last[x] - 1) * vol[x] * vol[x];
                        phi2[x] = v2;
                        mu[x] = (rating[x] - 1500.0) / scale;
                        kk[x] = k3 * v2;
                        gg[x] = 1.0 / sqrt(1.0 + k3 * v2);
                        vsum[x] = 0.0;
                        dsum[x] = 0.0;
                    }
                }
                int64_t a = pl[0], b = pl[1];
                double sc = score[i], diff = mu[a] - mu[b], ga = gg[a], gb = gg[b];
                double e_ab = 1.0 / (1.0 + exp(-gb * diff));
                double e_ba = 1.0 / (1.0 + exp(ga * diff));
                vsum[a] += gb * gb * e_ab * (1.0 - e_ab);
                dsum[a] += gb * (sc - e_ab);
                vsum[b] += ga * ga * e_ba * (1.0 - e_ba);
                dsum[b] += ga * ((1.0 - sc) - e_ba);
                pred[i] = 1.0 / (1.0 + exp(-diff / sqrt(1.0 + kk[a] + kk[b])));
                games[a] += 1;
                games[b] += 1;
            }
            for (size_t t = 0; t < nt; t++) {
                int64_t x = touched[t];
                double sigma = vol[x], ph2 = phi2[x], new_phi2;
                if (vsum[x] > 0.0) {
                    double v = 1.0 / vsum[x];
                    sigma = volatility(sigma, ph2, v, v * dsum[x], tau, eps, 100);
                    new_phi2 = 1.0 / (1.0 / (ph2 + sigma * sigma) + vsum[x]);
                } else {
                    new_phi2 = ph2 + sigma * sigma;
                }
                rating[x] = 1500.0 + scale * (mu[x] + new_phi2 * dsum[x]);
                rd[x] = scale * sqrt(new_phi2);
                vol[x] = sigma;
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
    write_array(dir, "volatility_c.bin", vol, 8, np);
    return 0;
}
