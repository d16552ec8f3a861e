/* The Kalah AI's inner search in C: the same negamax as `hub.games.kalah.ai.KalahSearch`'s
 * pure-Python one, step for step (turn generation order, move ordering, transposition table
 * with exact keys cleared when full, node counting, the clock checked every CHECK_EVERY
 * nodes), so that both give the same moves; only faster. The search runs without the GIL
 * (the event loop keeps serving) and takes it back only to ask the caller's ``poll``.
 *
 * Engine(holes, total, table_size, use_table)
 * Engine.negamax(board, depth, alpha, beta, nodes, next_check, cut, max_nodes, seconds,
 *                poll, poll_every) -> (value, nodes, next_check, cut, timed_out)
 * Engine.clear()
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define INF (1 << 30)
#define SOLVED (1 << 20)
#define EXACT 0
#define LOWER 1
#define UPPER 2
#define CHECK_EVERY 256
#define MAX_PITS 42

typedef int16_t pit_t;

typedef struct {
    PyObject_HEAD
    int h, n, w; /* holes, pits but the opponent's store (2h+1), board width (2h+2) */
    int total;
    pit_t *delta; /* [h][total+1][w] */
    int *last;    /* [h][total+1] */
    /* transposition table: open addressing, exact keys, generation-stamped slots */
    Py_ssize_t table_size;
    int use_table;
    size_t cap, mask, count;
    uint32_t generation;
    char *slots; /* [cap] entries of ``stride`` bytes: one probe reads one or two cache lines */
    size_t stride;
    size_t slots_bytes; /* mapped with mmap, not malloc: a freed table goes back to the
                           system at once (malloc's per-thread arenas kept tens of MB each
                           of a server's freed tables, so its memory grew with its games) */
    /* the kids of every node on the current line: records of w pits + 1 score */
    pit_t *arena;
    size_t arena_top, arena_cap;
    /* expand's scratch: the stack of mid-turn boards and the set of those seen */
    pit_t *scratch;
    size_t scratch_cap;
    size_t *stack;
    size_t stack_cap;
    /* per call */
    long long nodes, next_check, max_nodes;
    int cut, timed_out, checks, poll_every;
    double deadline;
    PyObject *poll;
    PyThreadState *thread;
    int failed; /* a Python error is set (poll raised, out of memory) */
    int running; /* a search is under way (without the GIL): no second one meanwhile */
} Engine;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int grow(pit_t **buffer, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t size = *cap ? *cap : 1024;
    while (size < need) size *= 2;
    pit_t *bigger = realloc(*buffer, size * sizeof(pit_t));
    if (bigger == NULL) return -1;
    *buffer = bigger;
    *cap = size;
    return 0;
}

typedef struct {
    uint32_t stamp; /* the table's generation when stored (another: an empty slot) */
    int32_t depth;
    int32_t value;
    int8_t flag, has_first;
    pit_t pits[]; /* the key (w pits), then the best kid (w pits) */
} Entry;

#define ENTRY(e, i) ((Entry *)((e)->slots + (i) * (e)->stride))

static uint64_t hash_board(const pit_t *board, int w) {
    uint64_t x = 1469598103934665603ULL;
    for (int i = 0; i < w; i++) {
        x ^= (uint16_t)board[i];
        x *= 1099511628211ULL;
    }
    return x ^ (x >> 29);
}

/* The slot holding ``board`` (live), or the empty slot where it would go. */
static size_t table_slot(Engine *e, const pit_t *board, int *found) {
    size_t i = (size_t)hash_board(board, e->w) & e->mask;
    for (;;) {
        Entry *entry = ENTRY(e, i);
        if (entry->stamp != e->generation) {
            *found = 0;
            return i;
        }
        if (memcmp(entry->pits, board, e->w * sizeof(pit_t)) == 0) {
            *found = 1;
            return i;
        }
        i = (i + 1) & e->mask;
    }
}

static void table_clear(Engine *e) {
    e->count = 0;
    e->generation++;
    if (e->generation == 0) { /* wrapped: really clear */
        for (size_t i = 0; i < e->cap; i++) ENTRY(e, i)->stamp = 0;
        e->generation = 1;
    }
}

/* Python's ``if len(table) >= size: table.clear()`` then ``table[board] = entry``. */
static void table_store(Engine *e, const pit_t *board, int depth, int flag, int value,
                        const pit_t *first) {
    int found;
    if ((Py_ssize_t)e->count >= e->table_size) table_clear(e);
    Entry *entry = ENTRY(e, table_slot(e, board, &found));
    if (!found) {
        entry->stamp = e->generation;
        memcpy(entry->pits, board, e->w * sizeof(pit_t));
        e->count++;
    }
    entry->depth = depth;
    entry->flag = (int8_t)flag;
    entry->value = value;
    entry->has_first = first != NULL;
    if (first != NULL) memcpy(entry->pits + e->w, first, e->w * sizeof(pit_t));
}

/* Ask the caller's poll (with the GIL); nonzero: stop. */
static int ask_poll(Engine *e) {
    if (e->poll == Py_None) return 0;
    PyEval_RestoreThread(e->thread);
    int stop = 0;
    PyObject *answer = PyObject_CallNoArgs(e->poll);
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

static int check(Engine *e) {
    if (e->nodes >= e->max_nodes) return 1;
    if (now_seconds() >= e->deadline) return 1;
    if (++e->checks >= e->poll_every) {
        e->checks = 0;
        if (ask_poll(e)) return 1;
    }
    return 0;
}

static int kid_index(Engine *e, size_t kids, int nkids, const pit_t *board) {
    int rec = e->w + 1;
    for (int k = 0; k < nkids; k++)
        if (memcmp(e->arena + kids + (size_t)k * rec, board, e->w * sizeof(pit_t)) == 0)
            return k;
    return -1;
}

/* Python's `KalahSearch.expand`: the kids go on the arena from ``arena_top`` (records of w pits
 * and the score), in the order a dict would keep them; returns their count (-1: no memory). */
static int expand(Engine *e, const pit_t *board, int *best_end) {
    const int h = e->h, n = e->n, w = e->w, h1 = h + 1, h2 = 2 * h, total = e->total;
    const int rec = w + 1;
    size_t kids = e->arena_top;
    int nkids = 0;
    /* scratch: [seen boards ...] and the stack is a list of indices into seen */
    size_t nseen = 0, sp = 0;
    if (grow(&e->scratch, &e->scratch_cap, (size_t)w)) return -1;
    memcpy(e->scratch, board, w * sizeof(pit_t));
    nseen = 1; /* slot 0: the root, which is not in ``seen`` (it can never recur) */
    e->stack[sp++] = 0;
    *best_end = -INF;
    pit_t nb[MAX_PITS], cur[MAX_PITS];
    while (sp) {
        memcpy(cur, e->scratch + e->stack[--sp] * w, w * sizeof(pit_t));
        for (int i = 0; i < h; i++) {
            int seeds = cur[i];
            if (!seeds) continue;
            const pit_t *d = e->delta + ((size_t)i * (total + 1) + seeds) * w;
            int last = e->last[i * (total + 1) + seeds];
            for (int p = 0; p < w; p++) nb[p] = (pit_t)(cur[p] + d[p]);
            if (last < h && nb[last] == 1) {
                int opposite = h2 - last;
                if (nb[opposite]) {
                    nb[h] += nb[opposite] + 1;
                    nb[last] = nb[opposite] = 0;
                    int theirs = 0;
                    for (int p = h1; p < n; p++) theirs |= nb[p];
                    if (!theirs) {
                        int final = 2 * (total - nb[n]) - total;
                        if (final > *best_end) *best_end = final;
                        continue;
                    }
                }
            }
            int mine = 0;
            for (int p = 0; p < h; p++) mine += nb[p];
            if (!mine) {
                int final = 2 * nb[h] - total;
                if (final > *best_end) *best_end = final;
            } else if (last == h) {
                int known = 0;
                for (size_t s = 1; s < nseen; s++)
                    if (memcmp(e->scratch + s * w, nb, w * sizeof(pit_t)) == 0) {
                        known = 1;
                        break;
                    }
                if (!known) {
                    if (grow(&e->scratch, &e->scratch_cap, (nseen + 1) * w)) return -1;
                    memcpy(e->scratch + nseen * w, nb, w * sizeof(pit_t));
                    if (sp == e->stack_cap) {
                        size_t *bigger = realloc(e->stack, 2 * e->stack_cap * sizeof(size_t));
                        if (bigger == NULL) return -1;
                        e->stack = bigger;
                        e->stack_cap *= 2;
                    }
                    e->stack[sp++] = nseen++;
                }
            } else {
                pit_t kid[MAX_PITS + 1];
                memcpy(kid, nb + h1, (w - h1) * sizeof(pit_t));
                memcpy(kid + (w - h1), nb, h1 * sizeof(pit_t));
                kid[w] = (pit_t)(nb[h] - nb[n]);
                if (kid_index(e, kids, nkids, kid) < 0) {
                    if (grow(&e->arena, &e->arena_cap, kids + (size_t)(nkids + 1) * rec))
                        return -1;
                    memcpy(e->arena + kids + (size_t)nkids * rec, kid, rec * sizeof(pit_t));
                    nkids++;
                }
            }
        }
    }
    return nkids;
}

static int negamax(Engine *e, const pit_t *board, int depth, int alpha, int beta) {
    const int h = e->h, w = e->w, rec = w + 1;
    e->nodes++;
    if (e->nodes >= e->next_check) {
        e->next_check = e->nodes + CHECK_EVERY;
        if (check(e)) {
            e->timed_out = 1;
            return 0;
        }
    }
    int mine = board[h], theirs = board[e->n];
    int low = 2 * mine - e->total;
    if (low >= beta) return low;
    int high = e->total - 2 * theirs;
    if (high <= alpha) return high;
    if (depth <= 0) {
        e->cut = 1;
        return mine - theirs;
    }
    pit_t first[MAX_PITS];
    int has_first = 0;
    if (e->use_table) {
        int found;
        Entry *entry = ENTRY(e, table_slot(e, board, &found));
        if (found) {
            int stored_depth = entry->depth, flag = entry->flag, value = entry->value;
            has_first = entry->has_first;
            if (has_first) memcpy(first, entry->pits + w, w * sizeof(pit_t));
            if (stored_depth >= depth &&
                (flag == EXACT || (flag == LOWER && value >= beta) ||
                 (flag == UPPER && value <= alpha))) {
                if (stored_depth < SOLVED) e->cut = 1;
                return value;
            }
        }
    }
    int best_end;
    size_t kids = e->arena_top;
    int nkids = expand(e, board, &best_end);
    if (nkids < 0) {
        e->failed = 2;
        e->timed_out = 1;
        return 0;
    }
    if (depth == 1) {
        e->nodes += nkids;
        int best = best_end, best_k = -1;
        if (nkids) {
            e->cut = 1;
            int top = -INF;
            for (int k = 0; k < nkids; k++) {
                int score = e->arena[kids + (size_t)k * rec + w];
                if (score > top) {
                    top = score;
                    best_k = k;
                }
            }
            if (top > best) best = top;
        }
        if (e->use_table)
            table_store(e, board, nkids ? 1 : SOLVED, EXACT, best,
                        best_k < 0 ? NULL : e->arena + kids + (size_t)best_k * rec);
        return best;
    }
    e->arena_top = kids + (size_t)nkids * rec;
    /* order: by score, descending, stable; the table's best kid first */
    int order_buf[64];
    int *order = nkids <= 64 ? order_buf : malloc(nkids * sizeof(int));
    if (order == NULL) {
        e->arena_top = kids;
        e->failed = 2;
        e->timed_out = 1;
        return 0;
    }
    for (int k = 0; k < nkids; k++) {
        int score = e->arena[kids + (size_t)k * rec + w];
        int j = k;
        while (j > 0 && e->arena[kids + (size_t)order[j - 1] * rec + w] < score) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = k;
    }
    if (has_first && nkids > 1) {
        int at = kid_index(e, kids, nkids, first);
        if (at >= 0) {
            int j = 0;
            while (order[j] != at) j++;
            for (; j > 0; j--) order[j] = order[j - 1];
            order[0] = at;
        }
    }
    int outer_cut = e->cut;
    e->cut = 0;
    int start_alpha = alpha;
    int best = best_end, best_k = -1;
    if (best > alpha) alpha = best;
    if (best < beta) {
        int pv = 1;
        for (int o = 0; o < nkids; o++) {
            int k = order[o];
            /* the arena may move while the child searches: copy the kid out */
            pit_t kid[MAX_PITS];
            memcpy(kid, e->arena + kids + (size_t)k * rec, w * sizeof(pit_t));
            int value;
            if (pv) {
                value = -negamax(e, kid, depth - 1, -beta, -alpha);
                pv = 0;
            } else {
                value = -negamax(e, kid, depth - 1, -alpha - 1, -alpha);
                if (!e->timed_out && alpha < value && value < beta)
                    value = -negamax(e, kid, depth - 1, -beta, -value);
            }
            if (e->timed_out) break;
            if (value > best) {
                best = value;
                best_k = k;
                if (value > alpha) {
                    if (value >= beta) break;
                    alpha = value;
                }
            }
        }
    }
    if (order != order_buf) free(order);
    if (e->timed_out) {
        e->arena_top = kids;
        return 0;
    }
    int solved = !e->cut;
    e->cut = e->cut || outer_cut;
    if (e->use_table) {
        int flag = best <= start_alpha ? UPPER : best >= beta ? LOWER : EXACT;
        const pit_t *keep = best_k >= 0 ? e->arena + kids + (size_t)best_k * rec
                                        : (has_first ? first : NULL);
        table_store(e, board, solved ? SOLVED : depth, flag, best, keep);
    }
    e->arena_top = kids;
    return best;
}

/* -- the Python type ------------------------------------------------------------------------ */

static void Engine_dealloc(Engine *e) {
    free(e->delta);
    free(e->last);
    if (e->slots) munmap(e->slots, e->slots_bytes);
    free(e->arena);
    free(e->scratch);
    free(e->stack);
    Py_TYPE(e)->tp_free((PyObject *)e);
}

static int Engine_init(Engine *e, PyObject *args, PyObject *kwds) {
    static char *names[] = {"holes", "total", "table_size", "use_table", NULL};
    int holes, total, use_table = 1;
    Py_ssize_t table_size;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iin|p", names, &holes, &total, &table_size,
                                     &use_table))
        return -1;
    if (holes < 1 || 2 * holes + 2 > MAX_PITS || total < 0 || total > 30000 || table_size < 1) {
        PyErr_SetString(PyExc_ValueError, "board out of range for the C search");
        return -1;
    }
    if (e->delta != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "an Engine is initialised once");
        return -1;
    }
    e->h = holes;
    e->n = 2 * holes + 1;
    e->w = 2 * holes + 2;
    e->total = total;
    e->table_size = table_size;
    e->use_table = use_table;
    size_t rows = (size_t)holes * (total + 1);
    e->delta = calloc(rows * e->w, sizeof(pit_t));
    e->last = calloc(rows, sizeof(int));
    size_t cap = 16;
    while (cap < (size_t)table_size * 2) cap *= 2;
    if (!use_table) cap = 16;
    e->cap = cap;
    e->mask = cap - 1;
    e->generation = 1;
    e->stride = (sizeof(Entry) + 2 * e->w * sizeof(pit_t) + 7) & ~(size_t)7;
    e->slots_bytes = cap * e->stride;
    e->slots = mmap(NULL, e->slots_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0); /* zeroed pages, like calloc's */
    if (e->slots == MAP_FAILED) e->slots = NULL;
    e->stack_cap = 64;
    e->stack = malloc(e->stack_cap * sizeof(size_t));
    if (!e->stack || !e->delta || !e->last || !e->slots) {
        PyErr_NoMemory();
        return -1;
    }
    /* Python's `KalahSearch._sowing_table` */
    for (int hole = 0; hole < holes; hole++) {
        e->last[hole * (total + 1)] = hole;
        for (int seeds = 1; seeds <= total; seeds++) {
            pit_t *d = e->delta + ((size_t)hole * (total + 1) + seeds) * e->w;
            d[hole] -= seeds;
            int pit = hole;
            for (int s = 0; s < seeds; s++) {
                pit = (pit + 1) % e->n;
                d[pit] += 1;
            }
            e->last[hole * (total + 1) + seeds] = pit;
        }
    }
    return 0;
}

static int read_board(Engine *e, PyObject *board, pit_t *out) {
    PyObject *seq = PySequence_Fast(board, "a board is a sequence of counts");
    if (seq == NULL) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != e->w) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "a board of the wrong size");
        return -1;
    }
    for (int i = 0; i < e->w; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        out[i] = (pit_t)v;
    }
    Py_DECREF(seq);
    return 0;
}

static PyObject *Engine_negamax(Engine *e, PyObject *args) {
    PyObject *board_obj, *poll;
    int depth, alpha, beta, cut, poll_every;
    long long nodes, next_check, max_nodes;
    double seconds;
    if (!PyArg_ParseTuple(args, "OiiiLLpLdOi", &board_obj, &depth, &alpha, &beta, &nodes,
                          &next_check, &cut, &max_nodes, &seconds, &poll, &poll_every))
        return NULL;
    pit_t board[MAX_PITS];
    if (read_board(e, board_obj, board)) return NULL;
    if (e->running) {
        PyErr_SetString(PyExc_RuntimeError, "this Engine is searching in another thread");
        return NULL;
    }
    e->running = 1;
    e->nodes = nodes;
    e->next_check = next_check;
    e->cut = cut;
    e->max_nodes = max_nodes;
    e->poll = poll;
    e->poll_every = poll_every < 1 ? 1 : poll_every;
    e->checks = 0;
    e->timed_out = 0;
    e->failed = 0;
    e->arena_top = 0;
    Py_INCREF(poll);
    e->thread = PyEval_SaveThread();
    e->deadline = now_seconds() + seconds;
    int value = negamax(e, board, depth, alpha, beta);
    PyEval_RestoreThread(e->thread);
    e->running = 0;
    Py_DECREF(poll);
    e->poll = NULL;
    if (e->failed == 1) return NULL;
    if (e->failed == 2) return PyErr_NoMemory();
    return Py_BuildValue("iLLOO", value, e->nodes, e->next_check, e->cut ? Py_True : Py_False,
                         e->timed_out ? Py_True : Py_False);
}

static PyObject *Engine_clear(Engine *e, PyObject *Py_UNUSED(ignored)) {
    if (e->running) {
        PyErr_SetString(PyExc_RuntimeError, "this Engine is searching in another thread");
        return NULL;
    }
    table_clear(e);
    Py_RETURN_NONE;
}

static PyObject *Engine_len(Engine *e, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromSize_t(e->count);
}

static PyMethodDef Engine_methods[] = {
    {"negamax", (PyCFunction)Engine_negamax, METH_VARARGS,
     "negamax(board, depth, alpha, beta, nodes, next_check, cut, max_nodes, seconds, poll, "
     "poll_every) -> (value, nodes, next_check, cut, timed_out)"},
    {"clear", (PyCFunction)Engine_clear, METH_NOARGS, "Empty the transposition table."},
    {"entries", (PyCFunction)Engine_len, METH_NOARGS, "Positions in the table."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject EngineType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "hub.games.kalah._search.Engine",
    .tp_doc = "The Kalah AI's negamax for one board size, with its transposition table.",
    .tp_basicsize = sizeof(Engine),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Engine_init,
    .tp_dealloc = (destructor)Engine_dealloc,
    .tp_methods = Engine_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_search",
    .m_doc = "The Kalah AI's inner search in C (hub.games.kalah.ai uses it when it is built).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__search(void) {
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
