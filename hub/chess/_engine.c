/* `hub engine`'s search in C (docs/decisions.md, "`hub engine`: a C search").
 *
 * A chess player with its own board, like Stockfish: bitboards (classical ray attacks, no
 * magic tables), Zobrist keys, make/unmake, pseudo-legal generation filtered by "the king
 * is not left in check", castling, en passant, promotions, the 50-move counter and
 * repetitions against the game's history. Every move it returns is checked by python-chess
 * (hub/chess/native.py), and its generator is checked against python-chess's by perft and
 * random games (tests/chesslib/test_native_engine.py).
 *
 * Search: iterative deepening, principal-variation alpha-beta with aspiration windows, a
 * transposition table (two slots a bucket, mapped per engine), quiescence over captures
 * and queen promotions (MVV-LVA, delta and SEE pruning), check extension, null move,
 * late-move reductions and pruning, futility and reverse futility pruning, killer and
 * history ordering, mate-distance scores and pruning; draws by repetition, 50 moves and
 * insufficient material inside the search. Evaluation: PeSTO's tapered piece-square tables
 * (Ronald Friederich's, as published on the Chess Programming Wiki) plus bishop pair,
 * passed pawns, mobility, rooks on open files and a tempo.
 *
 * The search runs without the GIL and reads CLOCK_MONOTONIC itself; every POLL_EVERY nodes it
 * takes the GIL back to ask the caller's ``stop`` callable, and after every completed
 * iteration to call ``report``.
 *
 * Engine(hash_mb=32)
 * Engine.search(fen, moves, optimum, hard, depth, nodes, stop, report)
 *     -> (uci_move | None, score, depth, nodes, pv)
 * Engine.clear()
 * perft(fen, depth) -> int;  legal_moves(fen) -> list[str]
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

typedef uint64_t U64;

enum { WHITE, BLACK };
enum { PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING };
#define EMPTY 12
#define PC(c, t) ((c) * 6 + (t))
#define COLOR(p) ((p) >= 6)
#define TYPE(p) ((p) % 6)
#define BIT(s) (1ULL << (s))
#define LSB(b) __builtin_ctzll(b)
#define MSB(b) (63 - __builtin_clzll(b))
#define POP(b) __builtin_popcountll(b)

/* A move in 16 bits: from, to, the promotion piece (knight..queen as 0..3), the kind. */
enum { K_NORMAL, K_PROMO, K_EP, K_CASTLE };
#define M_FROM(m) ((m) & 63)
#define M_TO(m) (((m) >> 6) & 63)
#define M_PROMO(m) ((((m) >> 12) & 3) + KNIGHT)
#define M_KIND(m) ((m) >> 14)
#define MOVE(f, t, promo, kind) ((uint16_t)((f) | ((t) << 6) | ((promo) << 12) | ((kind) << 14)))

#define MAX_PLY 100
#define MAX_MOVES 512 /* pseudo-legal moves; 218 legal ones at most in a real position */
#define INF 32000
#define MATE 31000
#define MATE_BOUND (MATE - 500)
#define EXTERNAL_MATE 100000 /* hub.chess.search.MATE: mate in n plies is MATE - n */
#define CHECK_EVERY 2048     /* nodes between two looks at the clock and the node limit */
#define POLL_EVERY 4         /* clock looks between two calls of ``stop`` (8,192 nodes) */
#define SOFT_SHARE 0.6       /* no new iteration past this share of ``optimum`` */

/* -- tables ---------------------------------------------------------------------------------- */

static U64 RAYS[8][64]; /* 0 N, 1 E, 2 NE, 3 NW (increasing squares), 4 S, 5 W, 6 SW, 7 SE */
static U64 KNIGHT_ATT[64], KING_ATT[64], PAWN_ATT[2][64];
static U64 PASSED_SPAN[2][64]; /* the squares in front on its own and the adjacent files */
static U64 FILE_BB[8];
static U64 Z_PIECE[12][64], Z_SIDE, Z_CASTLE[16], Z_EP[8];
static int CASTLE_MASK[64];
static int MG_T[12][64], EG_T[12][64]; /* material + placement, from white's side (signed) */
static const int PHASE_INC[6] = {0, 1, 1, 2, 4, 0};
static const int SEE_VALUE[6] = {100, 320, 330, 500, 900, 20000};
static int LMR[64][64];

/* PeSTO's tables (rank 8 first, from white's side), and its material values. */
static const int MG_VALUE[6] = {82, 337, 365, 477, 1025, 0};
static const int EG_VALUE[6] = {94, 281, 297, 512, 936, 0};
static const int PESTO_MG[6][64] = {
    {0,   0,   0,   0,   0,   0,   0,  0,   98,  134, 61,  95,  68,  126, 34,  -11,
     -6,  7,   26,  31,  65,  56,  25, -20, -14, 13,  6,   21,  23,  12,  17,  -23,
     -27, -2,  -5,  12,  17,  6,   10, -25, -26, -4,  -4,  -10, 3,   3,   33,  -12,
     -35, -1,  -20, -23, -15, 24,  38, -22, 0,   0,   0,   0,   0,   0,   0,   0},
    {-167, -89, -34, -49, 61,  -97, -15, -107, -73, -41, 72,  36,  23,  62,  7,   -17,
     -47,  60,  37,  65,  84,  129, 73,  44,   -9,  17,  19,  53,  37,  69,  18,  22,
     -13,  4,   16,  13,  28,  19,  21,  -8,   -23, -9,  12,  10,  19,  17,  25,  -16,
     -29,  -53, -12, -3,  -1,  18,  -14, -19,  -105, -21, -58, -33, -17, -28, -19, -23},
    {-29, 4,   -82, -37, -25, -42, 7,   -8,  -26, 16,  -18, -13, 30,  59,  18,  -47,
     -16, 37,  43,  40,  35,  50,  37,  -2,  -4,  5,   19,  50,  37,  37,  7,   -2,
     -6,  13,  13,  26,  34,  12,  10,  4,   0,   15,  15,  15,  14,  27,  18,  10,
     4,   15,  16,  0,   7,   21,  33,  1,   -33, -3,  -14, -21, -13, -12, -39, -21},
    {32,  42,  32,  51,  63, 9,  31,  43,  27,  32,  58,  62,  80, 67, 26,  44,
     -5,  19,  26,  36,  17, 45, 61,  16,  -24, -11, 7,   26,  24, 35, -8,  -20,
     -36, -26, -12, -1,  9,  -7, 6,   -23, -45, -25, -16, -17, 3,  0,  -5,  -33,
     -44, -16, -20, -9,  -1, 11, -6,  -71, -19, -13, 1,   17,  16, 7,  -37, -26},
    {-28, 0,   29,  12,  59,  44,  43,  45,  -24, -39, -5,  1,   -16, 57,  28,  54,
     -13, -17, 7,   8,   29,  56,  47,  57,  -27, -27, -16, -16, -1,  17,  -2,  1,
     -9,  -26, -9,  -10, -2,  -4,  3,   -3,  -14, 2,   -11, -2,  -5,  2,   14,  5,
     -35, -8,  11,  2,   8,   15,  -3,  1,   -1,  -18, -9,  10,  -15, -25, -31, -50},
    {-65, 23,  16,  -15, -56, -34, 2,   13,  29,  -1,  -20, -7,  -8,  -4,  -38, -29,
     -9,  24,  2,   -16, -20, 6,   22,  -22, -17, -20, -12, -27, -30, -25, -14, -36,
     -49, -1,  -27, -39, -46, -44, -33, -51, -14, -14, -22, -46, -44, -30, -15, -27,
     1,   7,   -8,  -64, -43, -16, 9,   8,   -15, 36,  12,  -54, 8,   -28, 24,  14},
};
static const int PESTO_EG[6][64] = {
    {0,  0,  0,  0,   0,   0,   0,   0,   178, 173, 158, 134, 147, 132, 165, 187,
     94, 100, 85, 67,  56,  53,  82,  84,  32,  24,  13,  5,   -2,  4,   17,  17,
     13, 9,  -3, -7,  -7,  -8,  3,   -1,  4,   7,   -6,  1,   0,   -5,  -1,  -8,
     13, 8,  8,  10,  13,  0,   2,   -7,  0,   0,   0,   0,   0,   0,   0,   0},
    {-58, -38, -13, -28, -31, -27, -63, -99, -25, -8,  -25, -2,  -9,  -25, -24, -52,
     -24, -20, 10,  9,   -1,  -9,  -19, -41, -17, 3,   22,  22,  22,  11,  8,   -18,
     -18, -6,  16,  25,  16,  17,  4,   -18, -23, -3,  -1,  15,  10,  -3,  -20, -22,
     -42, -20, -10, -5,  -2,  -20, -23, -44, -29, -51, -23, -15, -22, -18, -50, -64},
    {-14, -21, -11, -8,  -7, -9,  -17, -24, -8,  -4,  7,   -12, -3, -13, -4,  -14,
     2,   -8,  0,   -1,  -2, 6,   0,   4,   -3,  9,   12,  9,   14, 10,  3,   2,
     -6,  3,   13,  19,  7,  10,  -3,  -9,  -12, -3,  8,   10,  13, 3,   -7,  -15,
     -14, -18, -7,  -1,  4,  -9,  -15, -27, -23, -9,  -23, -5,  -9, -16, -5,  -17},
    {13, 10, 18, 15, 12, 12,  8,   5,   11, 13, 13, 11, -3, 3,   8,   3,
     7,  7,  7,  5,  4,  -3,  -5,  -3,  4,  3,  13, 1,  2,  1,   -1,  2,
     3,  5,  8,  4,  -5, -6,  -8,  -11, -4, 0,  -5, -1, -7, -12, -8,  -16,
     -6, -6, 0,  2,  -9, -9,  -11, -3,  -9, 2,  3,  -1, -5, -13, 4,   -20},
    {-9,  22,  22,  27,  27,  19,  10,  20,  -17, 20,  32,  41,  58,  25,  30,  0,
     -20, 6,   9,   49,  47,  35,  19,  9,   3,   22,  24,  45,  57,  40,  57,  36,
     -18, 28,  19,  47,  31,  34,  39,  23,  -16, -27, 15,  6,   9,   17,  10,  5,
     -22, -23, -30, -16, -16, -23, -36, -32, -33, -28, -22, -43, -5,  -32, -20, -41},
    {-74, -35, -18, -18, -11, 15,  4,   -17, -12, 17,  14,  17,  17,  38,  23,  11,
     10,  17,  23,  15,  20,  45,  44,  13,  -8,  22,  24,  27,  26,  33,  26,  3,
     -18, -4,  21,  24,  27,  23,  9,   -11, -19, -3,  11,  21,  23,  16,  7,   -9,
     -27, -11, 4,   13,  14,  4,   -5,  -17, -53, -34, -21, -11, -28, -14, -24, -43},
};

/* Passed pawns by rank from their own side (index 1..6), and the small terms. */
static const int PASSED_MG[8] = {0, 0, 5, 10, 15, 25, 40, 0};
static const int PASSED_EG[8] = {0, 10, 15, 25, 45, 75, 110, 0};

static U64 rng_state = 0x9E3779B97F4A7C15ULL;
static U64 rand64(void) { /* splitmix64: fixed keys, the same every run */
    U64 z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void init_tables(void) {
    static const int dfile[8] = {0, 1, 1, -1, 0, -1, -1, 1};
    static const int drank[8] = {1, 0, 1, 1, -1, 0, -1, -1};
    for (int s = 0; s < 64; s++) {
        int f = s & 7, r = s >> 3;
        for (int d = 0; d < 8; d++) {
            U64 ray = 0;
            for (int ff = f + dfile[d], rr = r + drank[d]; ff >= 0 && ff < 8 && rr >= 0 && rr < 8;
                 ff += dfile[d], rr += drank[d])
                ray |= BIT(rr * 8 + ff);
            RAYS[d][s] = ray;
        }
        static const int kn[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2},
                                     {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
        for (int i = 0; i < 8; i++) {
            int ff = f + kn[i][0], rr = r + kn[i][1];
            if (ff >= 0 && ff < 8 && rr >= 0 && rr < 8) KNIGHT_ATT[s] |= BIT(rr * 8 + ff);
        }
        for (int df = -1; df <= 1; df++)
            for (int dr = -1; dr <= 1; dr++) {
                int ff = f + df, rr = r + dr;
                if ((df || dr) && ff >= 0 && ff < 8 && rr >= 0 && rr < 8)
                    KING_ATT[s] |= BIT(rr * 8 + ff);
            }
        if (r < 7) {
            if (f > 0) PAWN_ATT[WHITE][s] |= BIT(s + 7);
            if (f < 7) PAWN_ATT[WHITE][s] |= BIT(s + 9);
        }
        if (r > 0) {
            if (f > 0) PAWN_ATT[BLACK][s] |= BIT(s - 9);
            if (f < 7) PAWN_ATT[BLACK][s] |= BIT(s - 7);
        }
        for (int ff = f - 1; ff <= f + 1; ff++) {
            if (ff < 0 || ff > 7) continue;
            for (int rr = r + 1; rr < 8; rr++) PASSED_SPAN[WHITE][s] |= BIT(rr * 8 + ff);
            for (int rr = r - 1; rr >= 0; rr--) PASSED_SPAN[BLACK][s] |= BIT(rr * 8 + ff);
        }
        CASTLE_MASK[s] = 15;
    }
    for (int f = 0; f < 8; f++) FILE_BB[f] = 0x0101010101010101ULL << f;
    CASTLE_MASK[4] = 15 & ~3;
    CASTLE_MASK[7] = 15 & ~1;
    CASTLE_MASK[0] = 15 & ~2;
    CASTLE_MASK[60] = 15 & ~12;
    CASTLE_MASK[63] = 15 & ~4;
    CASTLE_MASK[56] = 15 & ~8;
    for (int p = 0; p < 12; p++)
        for (int s = 0; s < 64; s++) Z_PIECE[p][s] = rand64();
    Z_SIDE = rand64();
    for (int i = 0; i < 16; i++) Z_CASTLE[i] = rand64();
    Z_CASTLE[0] = 0;
    for (int i = 0; i < 8; i++) Z_EP[i] = rand64();
    for (int t = 0; t < 6; t++)
        for (int s = 0; s < 64; s++) {
            /* the tables list rank 8 first: white's square s is entry s ^ 56, black's s */
            MG_T[PC(WHITE, t)][s] = MG_VALUE[t] + PESTO_MG[t][s ^ 56];
            EG_T[PC(WHITE, t)][s] = EG_VALUE[t] + PESTO_EG[t][s ^ 56];
            MG_T[PC(BLACK, t)][s] = -(MG_VALUE[t] + PESTO_MG[t][s]);
            EG_T[PC(BLACK, t)][s] = -(EG_VALUE[t] + PESTO_EG[t][s]);
        }
    for (int d = 1; d < 64; d++)
        for (int m = 1; m < 64; m++) {
            double v = 0.75 + log(d) * log(m) / 2.25;
            LMR[d][m] = (int)v;
        }
}

static inline U64 ray_attacks(int d, int s, U64 occ) {
    U64 a = RAYS[d][s], b = a & occ;
    if (b) a ^= RAYS[d][d < 4 ? LSB(b) : MSB(b)];
    return a;
}
static inline U64 bishop_attacks(int s, U64 occ) {
    return ray_attacks(2, s, occ) | ray_attacks(3, s, occ) | ray_attacks(6, s, occ) |
           ray_attacks(7, s, occ);
}
static inline U64 rook_attacks(int s, U64 occ) {
    return ray_attacks(0, s, occ) | ray_attacks(1, s, occ) | ray_attacks(4, s, occ) |
           ray_attacks(5, s, occ);
}

/* -- the board ------------------------------------------------------------------------------- */

typedef struct {
    U64 bb[12];
    U64 occ[2];
    uint8_t sq[64];
    int side, castle, ep, hm; /* ep: the en-passant target square, or -1 */
    U64 key;
    int mg, eg, phase; /* incremental, white's side */
} Pos;

typedef struct {
    int castle, ep, hm, mg, eg, phase;
    U64 key;
    int captured;
} Undo;

static inline void raw_put(Pos *p, int pc, int s) {
    p->bb[pc] |= BIT(s);
    p->occ[COLOR(pc)] |= BIT(s);
    p->sq[s] = (uint8_t)pc;
}
static inline void raw_del(Pos *p, int pc, int s) {
    p->bb[pc] &= ~BIT(s);
    p->occ[COLOR(pc)] &= ~BIT(s);
    p->sq[s] = EMPTY;
}
static inline void put(Pos *p, int pc, int s) {
    raw_put(p, pc, s);
    p->key ^= Z_PIECE[pc][s];
    p->mg += MG_T[pc][s];
    p->eg += EG_T[pc][s];
    p->phase += PHASE_INC[TYPE(pc)];
}
static inline void del(Pos *p, int pc, int s) {
    raw_del(p, pc, s);
    p->key ^= Z_PIECE[pc][s];
    p->mg -= MG_T[pc][s];
    p->eg -= EG_T[pc][s];
    p->phase -= PHASE_INC[TYPE(pc)];
}

static inline int attacked(const Pos *p, int s, int by) {
    if (PAWN_ATT[by ^ 1][s] & p->bb[PC(by, PAWN)]) return 1;
    if (KNIGHT_ATT[s] & p->bb[PC(by, KNIGHT)]) return 1;
    if (KING_ATT[s] & p->bb[PC(by, KING)]) return 1;
    U64 occ = p->occ[0] | p->occ[1];
    U64 bq = p->bb[PC(by, BISHOP)] | p->bb[PC(by, QUEEN)];
    if (bq && (bishop_attacks(s, occ) & bq)) return 1;
    U64 rq = p->bb[PC(by, ROOK)] | p->bb[PC(by, QUEEN)];
    if (rq && (rook_attacks(s, occ) & rq)) return 1;
    return 0;
}

static inline int in_check(const Pos *p, int side) {
    U64 k = p->bb[PC(side, KING)];
    return k ? attacked(p, LSB(k), side ^ 1) : 0;
}

/* Set the en-passant square only where a pawn of the side to move could take there. */
static inline void set_ep(Pos *p, int target) {
    int them = p->side; /* called after the side was switched: the capturing side */
    if (PAWN_ATT[them ^ 1][target] & p->bb[PC(them, PAWN)]) {
        p->ep = target;
        p->key ^= Z_EP[target & 7];
    }
}

/* Play ``m``; nonzero when it was legal (our king not left in check). Always unmake. */
static int make(Pos *p, uint16_t m, Undo *u) {
    int us = p->side, them = us ^ 1;
    int from = M_FROM(m), to = M_TO(m), kind = M_KIND(m);
    int pc = p->sq[from];
    u->castle = p->castle;
    u->ep = p->ep;
    u->hm = p->hm;
    u->key = p->key;
    u->mg = p->mg;
    u->eg = p->eg;
    u->phase = p->phase;
    u->captured = EMPTY;
    if (p->ep >= 0) p->key ^= Z_EP[p->ep & 7];
    p->ep = -1;
    p->hm++;
    if (kind == K_EP) {
        int victim = us == WHITE ? to - 8 : to + 8;
        u->captured = PC(them, PAWN);
        del(p, PC(them, PAWN), victim);
    } else if (p->sq[to] != EMPTY) {
        u->captured = p->sq[to];
        del(p, p->sq[to], to);
        p->hm = 0;
    }
    del(p, pc, from);
    put(p, kind == K_PROMO ? PC(us, M_PROMO(m)) : pc, to);
    if (TYPE(pc) == PAWN) {
        p->hm = 0;
    }
    if (kind == K_CASTLE) {
        int rook = PC(us, ROOK);
        if (to > from) {
            del(p, rook, from + 3);
            put(p, rook, from + 1);
        } else {
            del(p, rook, from - 4);
            put(p, rook, from - 1);
        }
    }
    int castle = p->castle & CASTLE_MASK[from] & CASTLE_MASK[to];
    if (castle != p->castle) {
        p->key ^= Z_CASTLE[p->castle] ^ Z_CASTLE[castle];
        p->castle = castle;
    }
    p->side = them;
    p->key ^= Z_SIDE;
    if (TYPE(pc) == PAWN && (to - from == 16 || from - to == 16)) set_ep(p, (from + to) / 2);
    return !in_check(p, us);
}

static void unmake(Pos *p, uint16_t m, const Undo *u) {
    int them = p->side, us = them ^ 1;
    int from = M_FROM(m), to = M_TO(m), kind = M_KIND(m);
    int pc = p->sq[to];
    raw_del(p, pc, to);
    raw_put(p, kind == K_PROMO ? PC(us, PAWN) : pc, from);
    if (kind == K_EP) {
        raw_put(p, u->captured, us == WHITE ? to - 8 : to + 8);
    } else if (u->captured != EMPTY) {
        raw_put(p, u->captured, to);
    }
    if (kind == K_CASTLE) {
        int rook = PC(us, ROOK);
        if (to > from) {
            raw_del(p, rook, from + 1);
            raw_put(p, rook, from + 3);
        } else {
            raw_del(p, rook, from - 1);
            raw_put(p, rook, from - 4);
        }
    }
    p->side = us;
    p->castle = u->castle;
    p->ep = u->ep;
    p->hm = u->hm;
    p->key = u->key;
    p->mg = u->mg;
    p->eg = u->eg;
    p->phase = u->phase;
}

static void make_null(Pos *p, Undo *u) {
    u->ep = p->ep;
    u->key = p->key;
    u->hm = p->hm;
    if (p->ep >= 0) p->key ^= Z_EP[p->ep & 7];
    p->ep = -1;
    p->hm = 0; /* no repetition across a null move */
    p->side ^= 1;
    p->key ^= Z_SIDE;
}
static void unmake_null(Pos *p, const Undo *u) {
    p->ep = u->ep;
    p->key = u->key;
    p->hm = u->hm;
    p->side ^= 1;
}

/* -- move generation ------------------------------------------------------------------------- */

typedef struct {
    uint16_t moves[MAX_MOVES];
    int scores[MAX_MOVES];
    int n;
} MoveList;

static inline void add(MoveList *l, uint16_t m) {
    if (l->n < MAX_MOVES) l->moves[l->n++] = m; /* never past the list, whatever the FEN */
}

static void add_promotions(MoveList *l, int from, int to, int noisy) {
    add(l, MOVE(from, to, QUEEN - KNIGHT, K_PROMO));
    if (noisy) return;
    add(l, MOVE(from, to, ROOK - KNIGHT, K_PROMO));
    add(l, MOVE(from, to, BISHOP - KNIGHT, K_PROMO));
    add(l, MOVE(from, to, KNIGHT - KNIGHT, K_PROMO));
}

/* Pseudo-legal moves; ``noisy``: captures and queen promotions only (quiescence). */
static void generate(const Pos *p, MoveList *l, int noisy) {
    int us = p->side, them = us ^ 1;
    U64 own = p->occ[us], enemy = p->occ[them], occ = own | enemy;
    U64 targets = noisy ? enemy : ~own;
    l->n = 0;
    /* pawns */
    U64 pawns = p->bb[PC(us, PAWN)];
    int up = us == WHITE ? 8 : -8;
    U64 last_rank = us == WHITE ? 0xFF00000000000000ULL : 0xFFULL;
    U64 third_rank = us == WHITE ? 0xFF0000ULL : 0xFF0000000000ULL;
    U64 pushes = us == WHITE ? (pawns << 8) & ~occ : (pawns >> 8) & ~occ;
    U64 doubles = us == WHITE ? ((pushes & third_rank) << 8) & ~occ
                              : ((pushes & third_rank) >> 8) & ~occ;
    U64 b = pushes & last_rank;
    while (b) {
        int to = LSB(b);
        b &= b - 1;
        add_promotions(l, to - up, to, noisy);
    }
    if (!noisy) {
        b = pushes & ~last_rank;
        while (b) {
            int to = LSB(b);
            b &= b - 1;
            add(l, MOVE(to - up, to, 0, K_NORMAL));
        }
        while (doubles) {
            int to = LSB(doubles);
            doubles &= doubles - 1;
            add(l, MOVE(to - 2 * up, to, 0, K_NORMAL));
        }
    }
    b = pawns;
    while (b) {
        int from = LSB(b);
        b &= b - 1;
        U64 caps = PAWN_ATT[us][from] & enemy;
        while (caps) {
            int to = LSB(caps);
            caps &= caps - 1;
            if (BIT(to) & last_rank) {
                add(l, MOVE(from, to, QUEEN - KNIGHT, K_PROMO));
                add(l, MOVE(from, to, ROOK - KNIGHT, K_PROMO));
                add(l, MOVE(from, to, BISHOP - KNIGHT, K_PROMO));
                add(l, MOVE(from, to, KNIGHT - KNIGHT, K_PROMO));
            } else {
                add(l, MOVE(from, to, 0, K_NORMAL));
            }
        }
        if (p->ep >= 0 && (PAWN_ATT[us][from] & BIT(p->ep))) add(l, MOVE(from, p->ep, 0, K_EP));
    }
    /* pieces */
    for (int t = KNIGHT; t <= KING; t++) {
        U64 pieces = p->bb[PC(us, t)];
        while (pieces) {
            int from = LSB(pieces);
            pieces &= pieces - 1;
            U64 att;
            switch (t) {
            case KNIGHT: att = KNIGHT_ATT[from]; break;
            case BISHOP: att = bishop_attacks(from, occ); break;
            case ROOK: att = rook_attacks(from, occ); break;
            case QUEEN: att = bishop_attacks(from, occ) | rook_attacks(from, occ); break;
            default: att = KING_ATT[from]; break;
            }
            att &= targets;
            while (att) {
                int to = LSB(att);
                att &= att - 1;
                add(l, MOVE(from, to, 0, K_NORMAL));
            }
        }
    }
    /* castling: the rook in its corner, the squares between empty, the king's path safe */
    if (!noisy && p->castle) {
        int base = us == WHITE ? 0 : 56;
        int rights = us == WHITE ? p->castle & 3 : (p->castle >> 2) & 3;
        int king = PC(us, KING), rook = PC(us, ROOK);
        if (rights && p->sq[base + 4] == king && !attacked(p, base + 4, them)) {
            if ((rights & 1) && p->sq[base + 7] == rook && p->sq[base + 5] == EMPTY &&
                p->sq[base + 6] == EMPTY && !attacked(p, base + 5, them) &&
                !attacked(p, base + 6, them))
                add(l, MOVE(base + 4, base + 6, 0, K_CASTLE));
            if ((rights & 2) && p->sq[base] == rook && p->sq[base + 1] == EMPTY &&
                p->sq[base + 2] == EMPTY && p->sq[base + 3] == EMPTY &&
                !attacked(p, base + 3, them) && !attacked(p, base + 2, them))
                add(l, MOVE(base + 4, base + 2, 0, K_CASTLE));
        }
    }
}

/* -- FEN and UCI ----------------------------------------------------------------------------- */

static int parse_fen(Pos *p, const char *fen) {
    memset(p, 0, sizeof(*p));
    for (int s = 0; s < 64; s++) p->sq[s] = EMPTY;
    p->ep = -1;
    const char *c = fen;
    int rank = 7, file = 0;
    static const char *letters = "PNBRQKpnbrqk";
    while (*c && *c != ' ') {
        if (*c == '/') {
            rank--;
            file = 0;
        } else if (*c >= '1' && *c <= '8') {
            file += *c - '0';
        } else {
            const char *at = strchr(letters, *c);
            if (at == NULL || file > 7 || rank < 0) return -1;
            put(p, (int)(at - letters), rank * 8 + file);
            file++;
        }
        if (file > 8 || rank < 0) return -1;
        c++;
    }
    if (POP(p->bb[PC(WHITE, KING)]) != 1 || POP(p->bb[PC(BLACK, KING)]) != 1) return -1;
    while (*c == ' ') c++;
    p->side = *c == 'b' ? BLACK : WHITE;
    if (*c) c++;
    while (*c == ' ') c++;
    while (*c && *c != ' ') {
        switch (*c) {
        case 'K': p->castle |= 1; break;
        case 'Q': p->castle |= 2; break;
        case 'k': p->castle |= 4; break;
        case 'q': p->castle |= 8; break;
        default: break;
        }
        c++;
    }
    while (*c == ' ') c++;
    int ep = -1;
    if (*c >= 'a' && *c <= 'h' && c[1] >= '1' && c[1] <= '8') {
        ep = (c[1] - '1') * 8 + (c[0] - 'a');
        c += 2;
    } else if (*c) {
        c++;
    }
    while (*c == ' ') c++;
    if (*c >= '0' && *c <= '9') p->hm = atoi(c);
    if (p->side == BLACK) p->key ^= Z_SIDE;
    p->key ^= Z_CASTLE[p->castle];
    if (ep >= 0) set_ep(p, ep);
    return 0;
}

static void move_uci(uint16_t m, char *out) {
    out[0] = (char)('a' + (M_FROM(m) & 7));
    out[1] = (char)('1' + (M_FROM(m) >> 3));
    out[2] = (char)('a' + (M_TO(m) & 7));
    out[3] = (char)('1' + (M_TO(m) >> 3));
    out[4] = 0;
    if (M_KIND(m) == K_PROMO) {
        out[4] = "nbrq"[M_PROMO(m) - KNIGHT];
        out[5] = 0;
    }
}

/* The legal move of ``p`` written ``uci`` (lower-case promotion), or 0. */
static uint16_t find_move(Pos *p, const char *uci) {
    MoveList l;
    char text[6];
    generate(p, &l, 0);
    for (int i = 0; i < l.n; i++) {
        move_uci(l.moves[i], text);
        if (strcmp(text, uci) != 0) continue;
        Undo u;
        int legal = make(p, l.moves[i], &u);
        unmake(p, l.moves[i], &u);
        if (legal) return l.moves[i];
    }
    return 0;
}

static uint64_t perft(Pos *p, int depth) {
    MoveList l;
    Undo u;
    uint64_t total = 0;
    generate(p, &l, 0);
    for (int i = 0; i < l.n; i++) {
        if (make(p, l.moves[i], &u)) total += depth <= 1 ? 1 : perft(p, depth - 1);
        unmake(p, l.moves[i], &u);
    }
    return total;
}

/* -- evaluation ------------------------------------------------------------------------------ */

static int insufficient(const Pos *p) {
    if (p->bb[PC(WHITE, PAWN)] | p->bb[PC(BLACK, PAWN)] | p->bb[PC(WHITE, ROOK)] |
        p->bb[PC(BLACK, ROOK)] | p->bb[PC(WHITE, QUEEN)] | p->bb[PC(BLACK, QUEEN)])
        return 0;
    int minors = POP(p->bb[PC(WHITE, KNIGHT)] | p->bb[PC(BLACK, KNIGHT)] |
                     p->bb[PC(WHITE, BISHOP)] | p->bb[PC(BLACK, BISHOP)]);
    return minors <= 1;
}

/* The static evaluation in centipawns from the side to move. */
static int evaluate(const Pos *p) {
    int mg = p->mg, eg = p->eg;
    U64 occ = p->occ[0] | p->occ[1];
    U64 wp = p->bb[PC(WHITE, PAWN)], bp = p->bb[PC(BLACK, PAWN)];
    U64 pawns = wp | bp;
    for (int c = WHITE; c <= BLACK; c++) {
        int sign = c == WHITE ? 1 : -1;
        int smg = 0, seg = 0;
        U64 own_pawns = p->bb[PC(c, PAWN)], their_pawns = p->bb[PC(c ^ 1, PAWN)];
        /* squares their pawns attack: no mobility counted there */
        U64 their_pawn_att = c == WHITE ? ((bp >> 7) & ~FILE_BB[0]) | ((bp >> 9) & ~FILE_BB[7])
                                        : ((wp << 7) & ~FILE_BB[7]) | ((wp << 9) & ~FILE_BB[0]);
        U64 avail = ~p->occ[c] & ~their_pawn_att;
        U64 b = own_pawns;
        while (b) {
            int s = LSB(b);
            b &= b - 1;
            if (!(PASSED_SPAN[c][s] & their_pawns)) {
                int r = c == WHITE ? s >> 3 : 7 - (s >> 3);
                smg += PASSED_MG[r];
                seg += PASSED_EG[r];
            }
            if (POP(own_pawns & FILE_BB[s & 7]) > 1) { /* doubled, counted once a pawn */
                smg -= 5;
                seg -= 10;
            }
            U64 adjacent = ((s & 7) > 0 ? FILE_BB[(s & 7) - 1] : 0) |
                           ((s & 7) < 7 ? FILE_BB[(s & 7) + 1] : 0);
            if (!(own_pawns & adjacent)) { /* isolated */
                smg -= 10;
                seg -= 10;
            }
        }
        if (POP(p->bb[PC(c, BISHOP)]) >= 2) {
            smg += 30;
            seg += 50;
        }
        b = p->bb[PC(c, KNIGHT)];
        while (b) {
            int s = LSB(b);
            b &= b - 1;
            int n = POP(KNIGHT_ATT[s] & avail) - 4;
            smg += 4 * n;
            seg += 4 * n;
        }
        b = p->bb[PC(c, BISHOP)];
        while (b) {
            int s = LSB(b);
            b &= b - 1;
            int n = POP(bishop_attacks(s, occ) & avail) - 6;
            smg += 5 * n;
            seg += 5 * n;
        }
        b = p->bb[PC(c, ROOK)];
        while (b) {
            int s = LSB(b);
            b &= b - 1;
            int n = POP(rook_attacks(s, occ) & avail) - 7;
            smg += 2 * n;
            seg += 4 * n;
            U64 file = FILE_BB[s & 7];
            if (!(pawns & file)) smg += 25;
            else if (!(own_pawns & file)) smg += 12;
        }
        b = p->bb[PC(c, QUEEN)];
        while (b) {
            int s = LSB(b);
            b &= b - 1;
            int n = POP((bishop_attacks(s, occ) | rook_attacks(s, occ)) & avail) - 13;
            smg += n;
            seg += 2 * n;
        }
        /* the king's pawn shield, in the middle game */
        U64 king = p->bb[PC(c, KING)];
        if (king) {
            int k = LSB(king);
            U64 shield = KING_ATT[k] | (c == WHITE ? KING_ATT[k] << 8 : KING_ATT[k] >> 8);
            int front = c == WHITE ? (k >> 3) <= 1 : (k >> 3) >= 6;
            if (front) smg += 8 * (POP(shield & own_pawns) > 3 ? 3 : POP(shield & own_pawns));
        }
        mg += sign * smg;
        eg += sign * seg;
    }
    int phase = p->phase > 24 ? 24 : p->phase;
    int score = (mg * phase + eg * (24 - phase)) / 24;
    /* a side ahead by a minor piece or less without pawns cannot win: scale down */
    if (score > 0 && !wp && p->phase <= 2 && !(p->bb[PC(WHITE, ROOK)] | p->bb[PC(WHITE, QUEEN)]))
        score /= 8;
    if (score < 0 && !bp && p->phase <= 2 && !(p->bb[PC(BLACK, ROOK)] | p->bb[PC(BLACK, QUEEN)]))
        score /= 8;
    return (p->side == WHITE ? score : -score) + 10;
}

/* Static exchange evaluation of the capture ``m`` (from the mover's side). */
static U64 attackers_to(const Pos *p, int s, U64 occ) {
    U64 bq = p->bb[PC(WHITE, BISHOP)] | p->bb[PC(BLACK, BISHOP)] | p->bb[PC(WHITE, QUEEN)] |
             p->bb[PC(BLACK, QUEEN)];
    U64 rq = p->bb[PC(WHITE, ROOK)] | p->bb[PC(BLACK, ROOK)] | p->bb[PC(WHITE, QUEEN)] |
             p->bb[PC(BLACK, QUEEN)];
    return (PAWN_ATT[BLACK][s] & p->bb[PC(WHITE, PAWN)]) |
           (PAWN_ATT[WHITE][s] & p->bb[PC(BLACK, PAWN)]) |
           (KNIGHT_ATT[s] & (p->bb[PC(WHITE, KNIGHT)] | p->bb[PC(BLACK, KNIGHT)])) |
           (KING_ATT[s] & (p->bb[PC(WHITE, KING)] | p->bb[PC(BLACK, KING)])) |
           (bishop_attacks(s, occ) & bq) | (rook_attacks(s, occ) & rq);
}

static int see(const Pos *p, uint16_t m) {
    int from = M_FROM(m), to = M_TO(m);
    if (M_KIND(m) != K_NORMAL) return 0;
    int gain[32], d = 0;
    U64 occ = p->occ[0] | p->occ[1];
    U64 bq = p->bb[PC(WHITE, BISHOP)] | p->bb[PC(BLACK, BISHOP)] | p->bb[PC(WHITE, QUEEN)] |
             p->bb[PC(BLACK, QUEEN)];
    U64 rq = p->bb[PC(WHITE, ROOK)] | p->bb[PC(BLACK, ROOK)] | p->bb[PC(WHITE, QUEEN)] |
             p->bb[PC(BLACK, QUEEN)];
    int side = p->side;
    int piece = TYPE(p->sq[from]);
    gain[0] = p->sq[to] == EMPTY ? 0 : SEE_VALUE[TYPE(p->sq[to])];
    U64 attackers = attackers_to(p, to, occ);
    U64 from_set = BIT(from);
    while (from_set && d < 31) {
        d++;
        side ^= 1;
        gain[d] = SEE_VALUE[piece] - gain[d - 1];
        if ((-gain[d - 1] > gain[d] ? -gain[d - 1] : gain[d]) < 0) break;
        occ ^= from_set;
        attackers |= (bishop_attacks(to, occ) & bq) | (rook_attacks(to, occ) & rq);
        attackers &= occ;
        from_set = 0;
        for (int t = PAWN; t <= KING; t++) {
            U64 set = attackers & p->bb[PC(side, t)];
            if (set) {
                from_set = set & -set;
                piece = t;
                break;
            }
        }
    }
    while (--d) gain[d - 1] = -(-gain[d - 1] > gain[d] ? -gain[d - 1] : gain[d]);
    return gain[0];
}

/* -- the transposition table ----------------------------------------------------------------- */

enum { TT_NONE, TT_EXACT, TT_LOWER, TT_UPPER };

typedef struct {
    U64 key;
    uint16_t move;
    int16_t score;
    int16_t eval;
    uint8_t depth, flag; /* flag: the bound in its low 2 bits, the search's age above */
} TTEntry;               /* 16 bytes; a bucket of two is depth-preferred + always-replace */

/* -- the engine ------------------------------------------------------------------------------ */

typedef struct {
    PyObject_HEAD
    TTEntry *tt;
    size_t tt_bytes, tt_buckets; /* buckets of two entries, a power of two */
    uint8_t age;
    Pos pos;
    U64 *keys; /* the keys of the game's positions up to the current one in the search */
    int nkeys, keys_cap;
    int killers[MAX_PLY + 2][2];
    int history[2][64][64];
    uint16_t pv[MAX_PLY + 2][MAX_PLY + 2];
    int pv_len[MAX_PLY + 2];
    long long nodes, node_limit;
    int seldepth, stopped, checks, failed, running;
    double start, hard_deadline;
    PyObject *stop_cb;
    PyThreadState *thread;
    uint16_t root_best;
    int root_best_score;
} Engine;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static TTEntry *tt_probe(Engine *e, U64 key) {
    TTEntry *b = e->tt + 2 * (key & (e->tt_buckets - 1));
    if (b[0].key == key && (b[0].flag & 3)) return &b[0];
    if (b[1].key == key && (b[1].flag & 3)) return &b[1];
    return NULL;
}

static inline int score_to_tt(int s, int ply) {
    return s >= MATE_BOUND ? s + ply : s <= -MATE_BOUND ? s - ply : s;
}
static inline int score_from_tt(int s, int ply) {
    return s >= MATE_BOUND ? s - ply : s <= -MATE_BOUND ? s + ply : s;
}

static void tt_store(Engine *e, U64 key, int depth, int flag, int score, int eval, uint16_t move,
                     int ply) {
    TTEntry *b = e->tt + 2 * (key & (e->tt_buckets - 1));
    TTEntry *slot;
    if (b[0].key == key || !(b[0].flag & 3) || (b[0].flag >> 2) != e->age || depth >= b[0].depth)
        slot = &b[0];
    else
        slot = &b[1];
    if (slot->key == key && move == 0) move = slot->move; /* keep the old best move */
    slot->key = key;
    slot->move = move;
    slot->score = (int16_t)score_to_tt(score, ply);
    slot->eval = (int16_t)eval;
    slot->depth = (uint8_t)(depth < 0 ? 0 : depth);
    slot->flag = (uint8_t)(flag | (e->age << 2));
}

/* Take the GIL back to ask ``stop``; nonzero: stop. */
static int ask_stop(Engine *e) {
    if (e->stop_cb == Py_None || e->failed) return e->failed;
    PyEval_RestoreThread(e->thread);
    int stop = 0;
    PyObject *answer = PyObject_CallNoArgs(e->stop_cb);
    if (answer == NULL) {
        e->failed = 1;
        stop = 1;
    } else {
        stop = PyObject_IsTrue(answer);
        Py_DECREF(answer);
        if (stop < 0) {
            e->failed = 1;
            stop = 1;
        }
    }
    e->thread = PyEval_SaveThread();
    return stop;
}

static void check_limits(Engine *e) {
    if (e->node_limit > 0 && e->nodes >= e->node_limit) e->stopped = 1;
    if (e->hard_deadline > 0 && now_seconds() >= e->hard_deadline) e->stopped = 1;
    if (++e->checks >= POLL_EVERY) {
        e->checks = 0;
        if (ask_stop(e)) e->stopped = 1;
    }
}

static inline void push_key(Engine *e) { e->keys[e->nkeys++] = e->pos.key; }

static int is_repetition(const Engine *e) {
    int n = e->nkeys - 1;
    U64 key = e->keys[n];
    int limit = n - e->pos.hm;
    for (int i = n - 2; i >= 0 && i >= limit; i -= 2)
        if (e->keys[i] == key) return 1;
    return 0;
}

static int has_pieces(const Pos *p, int side) {
    return (p->bb[PC(side, KNIGHT)] | p->bb[PC(side, BISHOP)] | p->bb[PC(side, ROOK)] |
            p->bb[PC(side, QUEEN)]) != 0;
}

/* Order: the hash move, good captures (MVV-LVA), queen promotions, killers, history, bad
 * captures. */
static void score_moves(Engine *e, MoveList *l, uint16_t tt_move, int ply) {
    const Pos *p = &e->pos;
    for (int i = 0; i < l->n; i++) {
        uint16_t m = l->moves[i];
        int victim = p->sq[M_TO(m)];
        int s;
        if (m == tt_move) {
            s = 2000000;
        } else if (victim != EMPTY || M_KIND(m) == K_EP) {
            int v = victim == EMPTY ? PAWN : TYPE(victim);
            int a = TYPE(p->sq[M_FROM(m)]);
            s = 1000000 + 10 * SEE_VALUE[v] - a;
            if (SEE_VALUE[v] < SEE_VALUE[a] && see(p, m) < 0) s = -100000 + 10 * SEE_VALUE[v] - a;
            if (M_KIND(m) == K_PROMO && M_PROMO(m) == QUEEN) s += 5000;
        } else if (M_KIND(m) == K_PROMO) {
            s = M_PROMO(m) == QUEEN ? 950000 : -200000;
        } else if (m == e->killers[ply][0]) {
            s = 900000;
        } else if (m == e->killers[ply][1]) {
            s = 800000;
        } else {
            s = e->history[p->side][M_FROM(m)][M_TO(m)];
        }
        l->scores[i] = s;
    }
}

static inline uint16_t pick(MoveList *l, int i) {
    int best = i;
    for (int j = i + 1; j < l->n; j++)
        if (l->scores[j] > l->scores[best]) best = j;
    uint16_t m = l->moves[best];
    int s = l->scores[best];
    l->moves[best] = l->moves[i];
    l->scores[best] = l->scores[i];
    l->moves[i] = m;
    l->scores[i] = s;
    return m;
}

static int quiesce(Engine *e, int alpha, int beta, int ply) {
    Pos *p = &e->pos;
    e->pv_len[ply] = ply;
    if ((++e->nodes & (CHECK_EVERY - 1)) == 0) check_limits(e);
    if (e->stopped) return 0;
    if (ply > e->seldepth) e->seldepth = ply;
    if (p->hm >= 100 || insufficient(p)) return 0;
    if (p->hm >= 4 && is_repetition(e)) return 0;
    if (ply >= MAX_PLY) return evaluate(p);
    int checked = in_check(p, p->side);
    int best, stand = 0;
    if (checked) {
        best = -MATE + ply;
    } else {
        stand = evaluate(p);
        if (stand >= beta) return stand;
        if (stand > alpha) alpha = stand;
        best = stand;
    }
    MoveList l;
    generate(p, &l, !checked);
    score_moves(e, &l, 0, ply < MAX_PLY ? ply : MAX_PLY);
    int legal = 0;
    for (int i = 0; i < l.n; i++) {
        uint16_t m = pick(&l, i);
        if (!checked) {
            int victim = p->sq[M_TO(m)];
            int gain = victim == EMPTY ? (M_KIND(m) == K_EP ? 100 : 0) : SEE_VALUE[TYPE(victim)];
            if (M_KIND(m) == K_PROMO) gain += 800;
            if (stand + gain + 200 <= alpha) continue; /* delta pruning */
            if (l.scores[i] < 0) continue;              /* losing exchange (SEE) */
        }
        Undo u;
        if (!make(p, m, &u)) {
            unmake(p, m, &u);
            continue;
        }
        legal++;
        push_key(e);
        int score = -quiesce(e, -beta, -alpha, ply + 1);
        e->nkeys--;
        unmake(p, m, &u);
        if (e->stopped) return 0;
        if (score > best) {
            best = score;
            if (score > alpha) {
                alpha = score;
                if (score >= beta) break;
            }
        }
    }
    if (checked && legal == 0) return -MATE + ply;
    return best;
}

static const int LMP_LIMIT[4] = {0, 5, 8, 13};

static int negamax(Engine *e, int depth, int alpha, int beta, int ply, int allow_null) {
    Pos *p = &e->pos;
    int pv_node = beta - alpha > 1;
    e->pv_len[ply] = ply;
    if (ply > 0) {
        if (p->hm >= 100 || insufficient(p) || is_repetition(e)) return 0;
        /* mate-distance pruning */
        if (alpha < -MATE + ply) alpha = -MATE + ply;
        if (beta > MATE - ply - 1) beta = MATE - ply - 1;
        if (alpha >= beta) return alpha;
    }
    if (ply >= MAX_PLY) return evaluate(p);
    int checked = in_check(p, p->side);
    if (checked) depth++;
    if (depth <= 0) return quiesce(e, alpha, beta, ply);
    if ((++e->nodes & (CHECK_EVERY - 1)) == 0) check_limits(e);
    if (e->stopped) return 0;
    if (ply > e->seldepth) e->seldepth = ply;

    uint16_t tt_move = 0;
    TTEntry *entry = tt_probe(e, p->key);
    int eval;
    if (entry) {
        tt_move = entry->move;
        int s = score_from_tt(entry->score, ply);
        int flag = entry->flag & 3;
        if (!pv_node && ply > 0 && entry->depth >= depth &&
            (flag == TT_EXACT || (flag == TT_LOWER && s >= beta) || (flag == TT_UPPER && s <= alpha)))
            return s;
        eval = checked ? -INF : entry->eval;
    } else {
        eval = checked ? -INF : evaluate(p);
    }

    if (!pv_node && !checked) {
        /* reverse futility */
        if (depth <= 7 && eval - 80 * depth >= beta && beta > -MATE_BOUND && beta < MATE_BOUND)
            return eval;
        /* null move */
        if (allow_null && depth >= 3 && eval >= beta && has_pieces(p, p->side)) {
            int r = 3 + depth / 4 + ((eval - beta) / 200 > 2 ? 2 : (eval - beta) / 200);
            Undo u;
            make_null(p, &u);
            push_key(e);
            int score = -negamax(e, depth - 1 - r, -beta, -beta + 1, ply + 1, 0);
            e->nkeys--;
            unmake_null(p, &u);
            if (e->stopped) return 0;
            if (score >= beta) return score >= MATE_BOUND ? beta : score;
        }
    }
    /* internal iterative reduction: no hash move in a deep node */
    if (!tt_move && depth >= 4 && pv_node) depth--;

    MoveList l;
    generate(p, &l, 0);
    score_moves(e, &l, tt_move, ply);
    int best = -INF, legal = 0, original_alpha = alpha;
    uint16_t best_move = 0;
    uint16_t quiets[MAX_MOVES];
    int nquiets = 0;
    for (int i = 0; i < l.n; i++) {
        uint16_t m = pick(&l, i);
        int quiet = p->sq[M_TO(m)] == EMPTY && M_KIND(m) != K_EP && M_KIND(m) != K_PROMO;
        Undo u;
        if (!make(p, m, &u)) {
            unmake(p, m, &u);
            continue;
        }
        legal++;
        int gives_check = in_check(p, p->side);
        if (!pv_node && !checked && !gives_check && quiet && legal > 1 && best > -MATE_BOUND) {
            if (depth <= 3 && legal > LMP_LIMIT[depth]) { /* late-move pruning */
                unmake(p, m, &u);
                continue;
            }
            if (depth <= 5 && eval + 100 + 90 * depth <= alpha) { /* futility */
                unmake(p, m, &u);
                continue;
            }
        }
        push_key(e);
        int score;
        if (legal == 1) {
            score = -negamax(e, depth - 1, -beta, -alpha, ply + 1, 1);
        } else {
            int r = 0;
            if (depth >= 3 && quiet && !checked && !gives_check) {
                r = LMR[depth < 64 ? depth : 63][legal < 64 ? legal : 63];
                if (pv_node) r--;
                if (m == e->killers[ply][0] || m == e->killers[ply][1]) r--;
                if (e->history[p->side ^ 1][M_FROM(m)][M_TO(m)] > 4000) r--;
                if (r < 0) r = 0;
                if (r > depth - 2) r = depth - 2;
            }
            score = -negamax(e, depth - 1 - r, -alpha - 1, -alpha, ply + 1, 1);
            if (score > alpha && r > 0) score = -negamax(e, depth - 1, -alpha - 1, -alpha, ply + 1, 1);
            if (score > alpha && score < beta) score = -negamax(e, depth - 1, -beta, -alpha, ply + 1, 1);
        }
        e->nkeys--;
        unmake(p, m, &u);
        if (e->stopped) return 0;
        if (score > best) {
            best = score;
            best_move = m;
            if (score > alpha) {
                alpha = score;
                e->pv[ply][ply] = m;
                for (int j = ply + 1; j < e->pv_len[ply + 1]; j++) e->pv[ply][j] = e->pv[ply + 1][j];
                e->pv_len[ply] = e->pv_len[ply + 1] > ply + 1 ? e->pv_len[ply + 1] : ply + 1;
                if (ply == 0) {
                    e->root_best = m;
                    e->root_best_score = score;
                }
                if (score >= beta) {
                    if (quiet) {
                        if (e->killers[ply][0] != m) {
                            e->killers[ply][1] = e->killers[ply][0];
                            e->killers[ply][0] = m;
                        }
                        int bonus = depth * depth;
                        int *h = &e->history[p->side][M_FROM(m)][M_TO(m)];
                        *h += bonus - *h * bonus / 16384;
                        for (int j = 0; j < nquiets; j++) {
                            int *q = &e->history[p->side][M_FROM(quiets[j])][M_TO(quiets[j])];
                            *q -= bonus + *q * bonus / 16384;
                        }
                    }
                    break;
                }
            }
        }
        if (quiet && nquiets < MAX_MOVES) quiets[nquiets++] = m;
    }
    if (legal == 0) return checked ? -MATE + ply : 0;
    int flag = best >= beta ? TT_LOWER : best > original_alpha ? TT_EXACT : TT_UPPER;
    tt_store(e, p->key, depth, flag, best, checked ? 0 : eval, best_move, ply);
    return best;
}

/* -- the Python type ------------------------------------------------------------------------- */

static PyObject *pv_list(Engine *e) {
    PyObject *list = PyList_New(0);
    if (list == NULL) return NULL;
    char text[6];
    for (int i = 0; i < e->pv_len[0]; i++) {
        move_uci(e->pv[0][i], text);
        PyObject *s = PyUnicode_FromString(text);
        if (s == NULL || PyList_Append(list, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(s);
    }
    return list;
}

static long external_score(int s) {
    if (s >= MATE_BOUND) return EXTERNAL_MATE - (MATE - s);
    if (s <= -MATE_BOUND) return -EXTERNAL_MATE + (MATE + s);
    return s;
}

static void Engine_dealloc(Engine *e) {
    if (e->tt) munmap(e->tt, e->tt_bytes);
    PyMem_Free(e->keys);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

static int Engine_init(Engine *e, PyObject *args, PyObject *kwds) {
    static char *names[] = {"hash_mb", NULL};
    int hash_mb = 32;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|i", names, &hash_mb)) return -1;
    if (hash_mb < 1 || hash_mb > 4096) {
        PyErr_SetString(PyExc_ValueError, "hash_mb out of 1..4096");
        return -1;
    }
    if (e->tt != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "an Engine is initialised once");
        return -1;
    }
    size_t buckets = 1;
    while (buckets * 2 * 2 * sizeof(TTEntry) <= (size_t)hash_mb << 20) buckets *= 2;
    e->tt_buckets = buckets;
    e->tt_bytes = buckets * 2 * sizeof(TTEntry);
    void *tt = mmap(NULL, e->tt_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (tt == MAP_FAILED) {
        PyErr_NoMemory();
        return -1;
    }
    e->tt = tt;
    return 0;
}

static int engine_busy(Engine *e) {
    if (e->tt == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "the Engine is not initialised");
        return 1;
    }
    if (e->running) {
        PyErr_SetString(PyExc_RuntimeError, "this Engine is searching in another thread");
        return 1;
    }
    return 0;
}

static PyObject *Engine_clear(Engine *e, PyObject *Py_UNUSED(ignored)) {
    if (engine_busy(e)) return NULL;
    memset(e->tt, 0, e->tt_bytes);
    memset(e->history, 0, sizeof(e->history));
    e->age = 0;
    Py_RETURN_NONE;
}

/* Set up ``e->pos`` and ``e->keys`` from a FEN and the UCI moves played from it. */
static int setup(Engine *e, const char *fen, PyObject *moves) {
    if (parse_fen(&e->pos, fen) < 0) {
        PyErr_Format(PyExc_ValueError, "not a FEN this engine reads: %s", fen);
        return -1;
    }
    PyObject *seq = PySequence_Fast(moves, "moves is a sequence of UCI strings");
    if (seq == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int cap = (int)n + MAX_PLY + 16;
    if (cap > e->keys_cap) {
        U64 *keys = PyMem_Realloc(e->keys, (size_t)cap * sizeof(U64));
        if (keys == NULL) {
            Py_DECREF(seq);
            PyErr_NoMemory();
            return -1;
        }
        e->keys = keys;
        e->keys_cap = cap;
    }
    e->nkeys = 0;
    push_key(e);
    for (Py_ssize_t i = 0; i < n; i++) {
        const char *text = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
        if (text == NULL) {
            Py_DECREF(seq);
            return -1;
        }
        uint16_t m = find_move(&e->pos, text);
        if (m == 0) {
            PyErr_Format(PyExc_ValueError, "not a legal move: %s", text);
            Py_DECREF(seq);
            return -1;
        }
        Undo u;
        make(&e->pos, m, &u);
        push_key(e);
    }
    Py_DECREF(seq);
    return 0;
}

/* Call ``report`` with the GIL after a completed iteration; nonzero: it failed. */
static int report_iteration(Engine *e, PyObject *report, int depth, int score) {
    if (report == Py_None || e->failed) return e->failed;
    PyEval_RestoreThread(e->thread);
    PyObject *pv = pv_list(e);
    PyObject *answer = NULL;
    if (pv != NULL) {
        answer = PyObject_CallFunction(report, "iilLdO", depth, e->seldepth, external_score(score),
                                       e->nodes, now_seconds() - e->start, pv);
        Py_DECREF(pv);
    }
    if (answer == NULL) e->failed = 1;
    Py_XDECREF(answer);
    e->thread = PyEval_SaveThread();
    return e->failed;
}

static PyObject *Engine_search(Engine *e, PyObject *args, PyObject *kwds) {
    static char *names[] = {"fen", "moves", "optimum", "hard", "depth", "nodes", "stop", "report",
                            NULL};
    const char *fen;
    PyObject *moves, *stop = Py_None, *report = Py_None;
    double optimum = 0, hard = 0;
    int max_depth = 0;
    long long node_limit = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sO|ddiLOO", names, &fen, &moves, &optimum,
                                     &hard, &max_depth, &node_limit, &stop, &report))
        return NULL;
    if (engine_busy(e)) return NULL;
    if (setup(e, fen, moves) < 0) return NULL;
    if (max_depth <= 0 || max_depth > MAX_PLY - 4) max_depth = MAX_PLY - 4;
    Pos *p = &e->pos;

    /* the root's legal moves */
    MoveList l;
    generate(p, &l, 0);
    int legal = 0;
    uint16_t only = 0;
    for (int i = 0; i < l.n; i++) {
        Undo u;
        if (make(p, l.moves[i], &u)) {
            legal++;
            only = l.moves[i];
        }
        unmake(p, l.moves[i], &u);
    }
    if (legal == 0) {
        long score = in_check(p, p->side) ? -EXTERNAL_MATE : 0;
        return Py_BuildValue("OliL[]", Py_None, score, 0, 0LL);
    }

    e->running = 1;
    e->stop_cb = stop;
    Py_INCREF(stop);
    e->nodes = 0;
    e->node_limit = node_limit;
    e->stopped = 0;
    e->failed = 0;
    e->checks = 0;
    e->seldepth = 0;
    e->age = (uint8_t)((e->age + 1) & 63);
    memset(e->killers, 0, sizeof(e->killers));
    for (int c = 0; c < 2; c++)
        for (int a = 0; a < 64; a++)
            for (int b = 0; b < 64; b++) e->history[c][a][b] /= 8;
    e->start = now_seconds();
    e->hard_deadline = hard > 0 ? e->start + hard : 0;
    double soft = optimum > 0 ? e->start + optimum * SOFT_SHARE : 0;
    e->thread = PyEval_SaveThread();

    uint16_t best = only;
    int best_score = 0, completed = 0;
    uint16_t best_pv[MAX_PLY + 2];
    int best_pv_len = 0;
    for (int depth = 1; depth <= max_depth; depth++) {
        e->root_best = best;
        e->root_best_score = best_score;
        int score, window = 25;
        int alpha = -INF, beta = INF;
        if (depth >= 5 && best_score > -MATE_BOUND && best_score < MATE_BOUND) {
            alpha = best_score - window;
            beta = best_score + window;
        }
        for (;;) {
            score = negamax(e, depth, alpha, beta, 0, 0);
            if (e->stopped) break;
            if (score <= alpha) {
                beta = (alpha + beta) / 2;
                alpha = score - window > -INF ? score - window : -INF;
            } else if (score >= beta) {
                beta = score + window < INF ? score + window : INF;
            } else {
                break;
            }
            window += window;
            if (window > 800) {
                alpha = -INF;
                beta = INF;
            }
        }
        if (e->stopped) {
            /* the aborted iteration's best root move, when one was searched to its end and
               beat the last iteration's */
            if (e->root_best != 0 && e->root_best != best && e->root_best_score > best_score) {
                best = e->root_best;
                best_score = e->root_best_score;
                best_pv[0] = best;
                best_pv_len = 1;
            }
            break;
        }
        if (e->pv_len[0] > 0) {
            best = e->pv[0][0];
            memcpy(best_pv, e->pv[0], (size_t)e->pv_len[0] * sizeof(uint16_t));
            best_pv_len = e->pv_len[0];
        }
        best_score = score;
        completed = depth;
        if (report_iteration(e, report, depth, score)) break;
        if (score >= MATE_BOUND && depth >= MATE - score) break; /* a mate found at full width */
        if (score <= -MATE_BOUND && depth >= MATE + score) break;
        if (legal == 1 && (optimum > 0 || hard > 0)) break;
        if (soft > 0 && now_seconds() >= soft) break;
        if (e->node_limit > 0 && e->nodes >= e->node_limit) break;
    }
    PyEval_RestoreThread(e->thread);
    e->running = 0;
    Py_DECREF(stop);
    e->stop_cb = NULL;
    if (e->failed) return NULL;
    char text[6];
    move_uci(best, text);
    memcpy(e->pv[0], best_pv, (size_t)best_pv_len * sizeof(uint16_t));
    e->pv_len[0] = best_pv_len;
    PyObject *pv = pv_list(e);
    if (pv == NULL) return NULL;
    return Py_BuildValue("sliLN", text, external_score(best_score), completed, e->nodes, pv);
}

static PyMethodDef Engine_methods[] = {
    {"search", (PyCFunction)(void (*)(void))Engine_search, METH_VARARGS | METH_KEYWORDS,
     "search(fen, moves, optimum=0, hard=0, depth=0, nodes=0, stop=None, report=None) -> "
     "(uci_move | None, score, depth, nodes, pv)"},
    {"clear", (PyCFunction)Engine_clear, METH_NOARGS,
     "Forget the transposition table and the history (a new game)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject EngineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hub.chess._engine.Engine",
    .tp_doc = "hub engine's chess search, with its transposition table.",
    .tp_basicsize = sizeof(Engine),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Engine_init,
    .tp_dealloc = (destructor)Engine_dealloc,
    .tp_methods = Engine_methods,
};

/* -- module functions for tests -------------------------------------------------------------- */

static PyObject *mod_perft(PyObject *Py_UNUSED(self), PyObject *args) {
    const char *fen;
    int depth;
    if (!PyArg_ParseTuple(args, "si", &fen, &depth)) return NULL;
    Pos p;
    if (parse_fen(&p, fen) < 0) {
        PyErr_Format(PyExc_ValueError, "not a FEN this engine reads: %s", fen);
        return NULL;
    }
    if (depth <= 0) return PyLong_FromLong(1);
    uint64_t n;
    Py_BEGIN_ALLOW_THREADS n = perft(&p, depth);
    Py_END_ALLOW_THREADS return PyLong_FromUnsignedLongLong(n);
}

static PyObject *mod_legal_moves(PyObject *Py_UNUSED(self), PyObject *args) {
    const char *fen;
    if (!PyArg_ParseTuple(args, "s", &fen)) return NULL;
    Pos p;
    if (parse_fen(&p, fen) < 0) {
        PyErr_Format(PyExc_ValueError, "not a FEN this engine reads: %s", fen);
        return NULL;
    }
    MoveList l;
    generate(&p, &l, 0);
    PyObject *list = PyList_New(0);
    if (list == NULL) return NULL;
    char text[6];
    for (int i = 0; i < l.n; i++) {
        Undo u;
        int ok = make(&p, l.moves[i], &u);
        unmake(&p, l.moves[i], &u);
        if (!ok) continue;
        move_uci(l.moves[i], text);
        PyObject *s = PyUnicode_FromString(text);
        if (s == NULL || PyList_Append(list, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(s);
    }
    return list;
}

static PyObject *mod_evaluate(PyObject *Py_UNUSED(self), PyObject *args) {
    const char *fen;
    if (!PyArg_ParseTuple(args, "s", &fen)) return NULL;
    Pos p;
    if (parse_fen(&p, fen) < 0) {
        PyErr_Format(PyExc_ValueError, "not a FEN this engine reads: %s", fen);
        return NULL;
    }
    return PyLong_FromLong(evaluate(&p));
}

static PyMethodDef module_methods[] = {
    {"perft", mod_perft, METH_VARARGS, "perft(fen, depth) -> int: leaf nodes at depth."},
    {"legal_moves", mod_legal_moves, METH_VARARGS, "legal_moves(fen) -> list of UCI moves."},
    {"evaluate", mod_evaluate, METH_VARARGS,
     "evaluate(fen) -> int: the static evaluation from the side to move."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_engine",
    .m_doc = "hub engine's chess search in C (hub.chess.native uses it when it is built).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__engine(void) {
    init_tables();
    if (PyType_Ready(&EngineType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&EngineType);
    if (PyModule_AddObject(m, "Engine", (PyObject *)&EngineType) < 0) {
        Py_DECREF(&EngineType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
