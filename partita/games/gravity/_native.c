/*
 * Optional compiled core of partita's gravity games: the solver's search, and the
 * importers' key replay (Replay, below, the same keys as GravityRules.replay_entry_keys).
 *
 * The same two searches as the pure-Python cores (partita/games/gravity/_topentry.py
 * for top-entry boards such as Connect Four, partita/games/gravity/_anyentry.py for
 * boards with entries from several sides such as Forza 4x4), with the same board
 * layouts, bounds, pruning, move ordering and score convention, so that both give
 * the same scores (tests/test_solver.py checks it); the any-entry search adds a
 * history table to its ordering. The transposition table is a fixed array of
 * `table_size` entries (full keys, so no false hits): replaced always on top-entry
 * boards, two-way on the others (see any_table_put).
 *
 * Built by setup.py as an optional extension: where it cannot be compiled the
 * package works with the pure-Python cores and loops.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

typedef uint64_t u64;
typedef unsigned __int128 u128;

#define MAX_SIDE 16
#define MAX_SYMMETRIES 8
#define CHECK_EVERY 4096

enum { STOP_NONE = 0, STOP_NODES = 1, STOP_TIME = 2, STOP_ERROR = 3 };

/* One entry of the any-entry core's table: the key and the value side by side, so
   that a probe touches one cache line (two, rarely). */
typedef struct __attribute__((packed)) {
    u64 low, high;
    uint8_t value;
} AnyEntry;

typedef struct {
    PyObject_HEAD
    int width, height, top_only, cells;
    /* budget */
    long long nodes, node_limit, next_check;
    double deadline; /* perf_counter value, < 0: none */
    int stop;
    int bound_low, bound_high; /* the score's bounds as far as the search got */
    PyObject *perf_counter;
    /* table */
    Py_ssize_t table_size;
    u64 *keys_low;
    uint8_t *values;
    AnyEntry *entries; /* instead of the two arrays above, on any-entry boards */
    int min_score, lower_offset, lower_base;
    /* top-entry boards */
    int stride;
    u64 bottom, board64;
    u64 column_masks[MAX_SIDE]; /* in centre-first order */
    /* boards with entries from several sides */
    int row_stride, column_stride, symmetry_count;
    u128 board;
    u64 row_full, column_full;
    u64 *row_landings;     /* row-local bits, by row occupancy */
    u128 *column_landings; /* row-major bits of column 0, by column occupancy */
    int cell_index[128];   /* compact index -> bit index, and back below */
    u128 bit_t[128];       /* by bit index: the column-major bit */
    int row_shift[128], column_shift[128], column_of[128], weight[128];
    u128 row_cells[128], column_cells[128];
    u128 x_weights[128][MAX_SYMMETRIES], o_weights[128][MAX_SYMMETRIES];
    /* move ordering: how often (weighted by the depth left) each side's move to each
       cell cut the search off */
    long long history[2][128];
} SearchObject;

/* -- the budget -------------------------------------------------------------------- */

static int checkpoint(SearchObject *self)
{
    if (self->node_limit >= 0 && self->nodes >= self->node_limit) {
        self->stop = STOP_NODES;
        return 1;
    }
    if (PyErr_CheckSignals() < 0) {
        self->stop = STOP_ERROR;
        return 1;
    }
    if (self->deadline >= 0) {
        PyObject *now = PyObject_CallNoArgs(self->perf_counter);
        if (now == NULL) {
            self->stop = STOP_ERROR;
            return 1;
        }
        double seconds = PyFloat_AsDouble(now);
        Py_DECREF(now);
        if (seconds > self->deadline) {
            self->stop = STOP_TIME;
            return 1;
        }
    }
    self->next_check = self->nodes + CHECK_EVERY;
    if (self->node_limit >= 0 && self->node_limit < self->next_check)
        self->next_check = self->node_limit;
    return 0;
}

#define COUNT_NODE(self)                                                   \
    do {                                                                   \
        (self)->nodes++;                                                   \
        if ((self)->nodes >= (self)->next_check && checkpoint(self))       \
            return 0;                                                      \
    } while (0)

/* -- the table ----------------------------------------------------------------------- */

#define HUGE_PAGE ((size_t)2 << 20)

/* Zeroed memory for a table. A table of several huge pages is aligned to them and,
   where the system has them, backed by them: a probe is a random read, and with 4 KB
   pages nearly every probe of a large table would miss the TLB as well. */
static void *table_alloc(size_t count, size_t size)
{
    size_t bytes = count * size;
    void *memory;
    if (bytes < 2 * HUGE_PAGE)
        return calloc(count, size);
    bytes = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    if (posix_memalign(&memory, HUGE_PAGE, bytes) != 0)
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(memory, bytes, MADV_HUGEPAGE);
#endif
    memset(memory, 0, bytes);
    return memory;
}

static inline Py_ssize_t table_slot(SearchObject *self, u64 low, u64 high)
{
    /* Fibonacci hashing, then a multiply-shift onto [0, table_size). */
    u64 hash = (low ^ (high * 0xC2B2AE3D27D4EB4FULL)) * 0x9E3779B97F4A7C15ULL;
    return (Py_ssize_t)(((u128)hash * (u64)self->table_size) >> 64);
}

static inline int table_get(SearchObject *self, u64 low, u64 high)
{
    Py_ssize_t slot = table_slot(self, low, high);
    if (self->values[slot] && self->keys_low[slot] == low)
        return self->values[slot];
    return 0;
}

static inline void table_put(SearchObject *self, u64 low, u64 high, int value)
{
    Py_ssize_t slot = table_slot(self, low, high);
    self->keys_low[slot] = low;
    self->values[slot] = (uint8_t)value;
}

/* The any-entry core's table is two-way: a position may sit in its slot or the next
   one. A new position takes a free slot or its own; else it replaces the one of the
   two with more stones (the deeper position, the cheaper to search again), so the
   positions near the root, whose searches cost most, stay. */
static inline Py_ssize_t table_next(SearchObject *self, Py_ssize_t slot)
{
    return slot + 1 == self->table_size ? 0 : slot + 1;
}

static inline int any_table_get(SearchObject *self, u64 low, u64 high)
{
    Py_ssize_t slot = table_slot(self, low, high);
    const AnyEntry *entry = &self->entries[slot];
    if (entry->value && entry->low == low && entry->high == high)
        return entry->value;
    entry = &self->entries[table_next(self, slot)];
    if (entry->value && entry->low == low && entry->high == high)
        return entry->value;
    return 0;
}

static inline void any_table_put(SearchObject *self, u64 low, u64 high, int value)
{
    Py_ssize_t slot = table_slot(self, low, high);
    AnyEntry *here = &self->entries[slot], *there = &self->entries[table_next(self, slot)];
    AnyEntry *target;
    if (!here->value || (here->low == low && here->high == high))
        target = here;
    else if (!there->value || (there->low == low && there->high == high))
        target = there;
    else
        target = __builtin_popcountll(here->low) + __builtin_popcountll(here->high) >=
                         __builtin_popcountll(there->low) + __builtin_popcountll(there->high)
                     ? here
                     : there;
    target->low = low;
    target->high = high;
    target->value = (uint8_t)value;
}

/* -- top-entry boards (Connect Four) ----------------------------------------------- */

static inline u64 top_winning(u64 p, int s)
{
    u64 r = (p << 1) & (p << 2) & (p << 3);
    int d;
    for (d = s - 1; d <= s + 1; d++) {
        u64 q = (p << d) & (p << 2 * d);
        r |= q & (p << 3 * d);
        r |= q & (p >> d);
        q = (p >> d) & (p >> 2 * d);
        r |= q & (p << d);
        r |= q & (p >> 3 * d);
    }
    return r;
}

static int top_negamax(SearchObject *self, u64 current, u64 mask, int moves, int alpha, int beta)
{
    const int cells = self->cells;
    const u64 board = self->board64;
    u64 empty, threats, possible, forced;
    int high, low, value, i, count = 0;
    u64 key = current + mask;
    u64 order_moves[MAX_SIDE];
    int order_scores[MAX_SIDE];

    COUNT_NODE(self);
    high = (cells - 1 - moves) / 2;
    if (beta > high) {
        beta = high;
        if (alpha >= beta)
            return beta;
    }
    value = table_get(self, key, 0);
    if (value) {
        if (value > self->lower_base) {
            low = value - self->lower_offset;
            if (alpha < low) {
                alpha = low;
                if (alpha >= beta)
                    return alpha;
            }
        }
        else {
            high = value + self->min_score - 1;
            if (beta > high) {
                beta = high;
                if (alpha >= beta)
                    return beta;
            }
        }
    }
    empty = board ^ mask;
    threats = top_winning(current ^ mask, self->stride) & empty;
    possible = (mask + self->bottom) & board;
    forced = possible & threats;
    if (forced) {
        if (forced & (forced - 1))
            return -((cells - moves) / 2);
        possible = forced;
    }
    possible &= ~(threats >> 1);
    if (!possible)
        return -((cells - moves) / 2);
    if (moves >= cells - 2)
        return 0;
    low = -((cells - 2 - moves) / 2);
    if (alpha < low) {
        alpha = low;
        if (alpha >= beta)
            return alpha;
    }
    for (i = 0; i < self->width; i++) {
        u64 move = possible & self->column_masks[i];
        if (move) {
            int score = __builtin_popcountll(top_winning(current | move, self->stride) & empty);
            int j = count++;
            while (j > 0 && order_scores[j - 1] < score) {
                order_scores[j] = order_scores[j - 1];
                order_moves[j] = order_moves[j - 1];
                j--;
            }
            order_scores[j] = score;
            order_moves[j] = move;
        }
    }
    for (i = 0; i < count; i++) {
        int score = -top_negamax(self, current ^ mask, mask | order_moves[i], moves + 1, -beta, -alpha);
        if (self->stop)
            return 0;
        if (score >= beta) {
            table_put(self, key, 0, score + self->lower_offset);
            return score;
        }
        if (score > alpha)
            alpha = score;
    }
    table_put(self, key, 0, alpha - self->min_score + 1);
    return alpha;
}

static int top_solve(SearchObject *self, u64 x, u64 o)
{
    const int w = self->width, h = self->height, s = self->stride, cells = self->cells;
    u64 x_bits = 0, o_bits = 0, mask, current;
    int compact, moves, low, high;
    for (compact = 0; compact < cells; compact++) {
        int r = compact / w, c = compact % w;
        u64 bit = (u64)1 << (c * s + h - 1 - r);
        if (x >> compact & 1)
            x_bits |= bit;
        else if (o >> compact & 1)
            o_bits |= bit;
    }
    mask = x_bits | o_bits;
    moves = __builtin_popcountll(mask);
    current = moves % 2 == 0 ? x_bits : o_bits;
    if (moves >= cells)
        return 0;
    if (top_winning(current, s) & (self->board64 ^ mask) & ((mask + self->bottom) & self->board64))
        return (cells + 1 - moves) / 2;
    low = -((cells - moves) / 2);
    high = (cells + 1 - moves) / 2;
    while (low < high) {
        int middle = low + (high - low) / 2, result;
        if (middle <= 0 && low / 2 < middle)
            middle = low / 2;
        else if (middle >= 0 && high / 2 > middle)
            middle = high / 2;
        self->bound_low = low;
        self->bound_high = high;
        result = top_negamax(self, current, mask, moves, middle, middle + 1);
        if (self->stop)
            return 0;
        if (result <= middle)
            high = result;
        else
            low = result;
    }
    return low;
}

/* -- boards with entries from several sides (Forza 4x4) ------------------------------ */

static inline u128 any_winning(u128 p, int s)
{
    u128 r = 0;
    int shifts[4] = {1, s, s - 1, s + 1}, k;
    for (k = 0; k < 4; k++) {
        int d = shifts[k];
        u128 q = (p << d) & (p << 2 * d);
        r |= q & (p << 3 * d);
        r |= q & (p >> d);
        q = (p >> d) & (p >> 2 * d);
        r |= q & (p << d);
        r |= q & (p >> 3 * d);
    }
    return r;
}

static inline int popcount128(u128 value)
{
    return __builtin_popcountll((u64)value) + __builtin_popcountll((u64)(value >> 64));
}

static inline int lowest_bit(u128 value)
{
    u64 low = (u64)value;
    if (low)
        return __builtin_ctzll(low);
    return 64 + __builtin_ctzll((u64)(value >> 64));
}

/* History scores stay below 2^31 (they fill the low half of an ordering score). */
#define HISTORY_CAP ((long long)1 << 30)

static void history_halve(SearchObject *self)
{
    int side, index;
    for (side = 0; side < 2; side++)
        for (index = 0; index < 128; index++)
            self->history[side][index] >>= 1;
}

typedef struct {
    u128 current, opponent, mask, mask_t, row_lands, column_lands;
    u128 keys[MAX_SYMMETRIES];
    int stones;
} AnyPosition;

static int any_negamax(SearchObject *self, const AnyPosition *position, int alpha, int beta)
{
    const int cells = self->cells, s = self->row_stride, stones = position->stones;
    const u128 landing = position->row_lands | position->column_lands;
    u128 empty, threats, rest, key, child_key;
    u128 child_rows[64], child_columns[64], child_keys[64]; /* at most 64 moves */
    int high, low, value, count = 0, i, k, side = stones & 1;
    int order_index[64];
    long long order_scores[64];
    u64 key_low, key_high;
    const u128 (*weights)[MAX_SYMMETRIES];

    COUNT_NODE(self);
    if (!landing)
        return 0;
    empty = self->board ^ position->mask;
    if (any_winning(position->current, s) & landing)
        return (cells + 1 - stones) / 2;
    high = (cells - 1 - stones) / 2;
    if (beta > high) {
        beta = high;
        if (alpha >= beta)
            return beta;
    }
    key = position->keys[0];
    for (k = 1; k < self->symmetry_count; k++)
        if (position->keys[k] < key)
            key = position->keys[k];
    key_low = (u64)key;
    key_high = (u64)(key >> 64);
    value = any_table_get(self, key_low, key_high);
    if (value) {
        if (value > self->lower_base) {
            low = value - self->lower_offset;
            if (alpha < low) {
                alpha = low;
                if (alpha >= beta)
                    return alpha;
            }
        }
        else {
            high = value + self->min_score - 1;
            if (beta > high) {
                beta = high;
                if (alpha >= beta)
                    return beta;
            }
        }
    }
    /* The opponent's winning cells: a move after which one of them can be reached
       loses at once, so it is not searched (a piece blocks a cell by filling it, or
       from a distance by stopping the pieces that would slide onto it). */
    threats = any_winning(position->opponent, s) & empty;
    weights = side == 0 ? self->x_weights : self->o_weights;
    rest = landing;
    while (rest) {
        int index = lowest_bit(rest), j;
        long long score;
        u128 bit = (u128)1 << index, child_mask = position->mask | bit, own, reach;
        u128 child_mask_t = position->mask_t | self->bit_t[index], row_lands, column_lands;
        u64 occupied;
        rest &= rest - 1;
        occupied = (u64)(child_mask >> self->row_shift[index]) & self->row_full;
        row_lands = (position->row_lands & ~self->row_cells[index]) |
                    ((u128)self->row_landings[occupied] << self->row_shift[index]);
        occupied = (u64)(child_mask_t >> self->column_shift[index]) & self->column_full;
        column_lands = (position->column_lands & ~self->column_cells[index]) |
                       (self->column_landings[occupied] << self->column_of[index]);
        reach = row_lands | column_lands;
        if (threats & ~bit & reach)
            continue;
        /* Ask for the child's table slot now: a probe is mostly a cache miss, and
           the misses of all the children then overlap. */
        child_key = position->keys[0] + weights[index][0];
        {
            u128 image;
            for (k = 1; k < self->symmetry_count; k++) {
                image = position->keys[k] + weights[index][k];
                if (image < child_key)
                    child_key = image;
            }
            __builtin_prefetch(
                &self->entries[table_slot(self, (u64)child_key, (u64)(child_key >> 64))]);
        }
        /* Order: the moves that leave the side to move a winning cell the opponent
           must answer, then by the lines the move leaves one short, then the moves
           that cut off most often before (history, below 2^31), then central cells. */
        own = any_winning(position->current | bit, s) & (empty ^ bit);
        score = (long long)popcount128(own & reach) << 56 | (long long)popcount128(own) << 48 |
                self->history[side][index] << 8 | self->weight[index];
        j = count++;
        while (j > 0 && (order_scores[j - 1] < score ||
                         (order_scores[j - 1] == score && order_index[j - 1] < index))) {
            order_scores[j] = order_scores[j - 1];
            order_index[j] = order_index[j - 1];
            child_rows[j] = child_rows[j - 1];
            child_columns[j] = child_columns[j - 1];
            child_keys[j] = child_keys[j - 1];
            j--;
        }
        order_scores[j] = score;
        order_index[j] = index;
        child_rows[j] = row_lands;
        child_columns[j] = column_lands;
        child_keys[j] = child_key;
    }
    if (count == 0) /* every move lets the opponent win at once */
        return -((cells - stones) / 2);
    /* The opponent cannot win with its next stone: at worst with the one after. */
    low = -((cells - 2 - stones) / 2);
    if (alpha < low) {
        alpha = low;
        if (alpha >= beta)
            return alpha;
    }
    /* A child the table bounds from above bounds this position from below: enough,
       maybe, to cut off before any child is searched (their slots were prefetched). */
    for (i = 0; i < count; i++) {
        value = any_table_get(self, (u64)child_keys[i], (u64)(child_keys[i] >> 64));
        if (value && value <= self->lower_base) {
            low = -(value + self->min_score - 1);
            if (alpha < low) {
                alpha = low;
                if (alpha >= beta)
                    return alpha;
            }
        }
    }
    for (i = 0; i < count; i++) {
        int index = order_index[i], score;
        u128 bit = (u128)1 << index;
        AnyPosition child;
        child.current = position->opponent;
        child.opponent = position->current | bit;
        child.mask = position->mask | bit;
        child.mask_t = position->mask_t | self->bit_t[index];
        child.row_lands = child_rows[i];
        child.column_lands = child_columns[i];
        for (k = 0; k < self->symmetry_count; k++)
            child.keys[k] = position->keys[k] + weights[index][k];
        child.stones = stones + 1;
        score = -any_negamax(self, &child, -beta, -alpha);
        if (self->stop)
            return 0;
        if (score >= beta) {
            int depth = cells - stones;
            self->history[side][index] += depth * depth;
            if (self->history[side][index] > HISTORY_CAP)
                history_halve(self);
            any_table_put(self, key_low, key_high, score + self->lower_offset);
            return score;
        }
        if (score > alpha)
            alpha = score;
    }
    any_table_put(self, key_low, key_high, alpha - self->min_score + 1);
    return alpha;
}

static int any_solve(SearchObject *self, u64 x, u64 o)
{
    const int w = self->width, h = self->height, rs = self->row_stride, cells = self->cells;
    AnyPosition position;
    u128 x_wide = 0, o_wide = 0;
    int compact, r, c, k, low, high;
    memset(&position, 0, sizeof position);
    for (compact = 0; compact < cells; compact++) {
        int index = self->cell_index[compact];
        u128 bit = (u128)1 << index;
        const u128 *weights;
        if (x >> compact & 1) {
            x_wide |= bit;
            weights = self->x_weights[index];
        }
        else if (o >> compact & 1) {
            o_wide |= bit;
            weights = self->o_weights[index];
        }
        else
            continue;
        position.mask_t |= self->bit_t[index];
        for (k = 0; k < self->symmetry_count; k++)
            position.keys[k] += weights[k];
    }
    position.mask = x_wide | o_wide;
    for (r = 0; r < h; r++) {
        u64 occupied = (u64)(position.mask >> (r * rs)) & self->row_full;
        position.row_lands |= (u128)self->row_landings[occupied] << (r * rs);
    }
    for (c = 0; c < w; c++) {
        u64 occupied = (u64)(position.mask_t >> (c * self->column_stride)) & self->column_full;
        position.column_lands |= self->column_landings[occupied] << c;
    }
    position.stones = __builtin_popcountll(x) + __builtin_popcountll(o);
    position.current = position.stones % 2 == 0 ? x_wide : o_wide;
    position.opponent = position.stones % 2 == 0 ? o_wide : x_wide;
    if (!(position.row_lands | position.column_lands))
        return 0;
    if (any_winning(position.current, rs) & (position.row_lands | position.column_lands))
        return (cells + 1 - position.stones) / 2;
    low = -((cells - position.stones) / 2);
    high = (cells + 1 - position.stones) / 2;
    while (low < high) {
        int middle = low + (high - low) / 2, result;
        if (middle <= 0 && low / 2 < middle)
            middle = low / 2;
        else if (middle >= 0 && high / 2 > middle)
            middle = high / 2;
        self->bound_low = low;
        self->bound_high = high;
        result = any_negamax(self, &position, middle, middle + 1);
        if (self->stop)
            return 0;
        if (result <= middle)
            high = result;
        else
            low = result;
    }
    return low;
}

/* -- set-up --------------------------------------------------------------------------- */

static u64 landings(u64 occupied, int length, int low, int high)
{
    u64 result = 0;
    if (low && !(occupied & 1))
        result |= occupied ? (occupied & (~occupied + 1)) >> 1 : (u64)1 << (length - 1);
    if (high && !(occupied >> (length - 1) & 1)) {
        int bits = 0;
        while (occupied >> bits)
            bits++;
        result |= (u64)1 << bits;
    }
    return result;
}

static int setup_top(SearchObject *self)
{
    const int w = self->width, h = self->height;
    int column, i, order[MAX_SIDE];
    self->stride = h + 1;
    self->bottom = 0;
    for (column = 0; column < w; column++)
        self->bottom |= (u64)1 << (column * self->stride);
    self->board64 = self->bottom * ((((u64)1) << h) - 1);
    /* centre first, the left one first among two at the same distance */
    for (i = 0; i < w; i++)
        order[i] = i;
    for (i = 1; i < w; i++) {
        int j = i, value = order[i];
        while (j > 0 && (abs(2 * order[j - 1] - (w - 1)) > abs(2 * value - (w - 1)) ||
                         (abs(2 * order[j - 1] - (w - 1)) == abs(2 * value - (w - 1)) &&
                          order[j - 1] > value))) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = value;
    }
    for (i = 0; i < w; i++)
        self->column_masks[i] = ((((u64)1) << h) - 1) << (order[i] * self->stride);
    return 0;
}

static int setup_any(SearchObject *self, const char *sides, PyObject *symmetries)
{
    const int w = self->width, h = self->height;
    int rs, cs, r, c, occupied, k, dc, dr;
    u128 column_clear = 0, *spread;
    static const int directions[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    rs = self->row_stride = w + 1;
    cs = self->column_stride = h + 1;
    self->board = 0;
    for (r = 0; r < h; r++)
        for (c = 0; c < w; c++)
            self->board |= (u128)1 << (r * rs + c);
    self->row_full = ((u64)1 << w) - 1;
    self->column_full = ((u64)1 << h) - 1;
    self->row_landings = PyMem_Calloc((size_t)1 << w, sizeof(u64));
    self->column_landings = PyMem_Calloc((size_t)1 << h, sizeof(u128));
    spread = PyMem_Calloc((size_t)1 << h, sizeof(u128));
    if (!self->row_landings || !self->column_landings || !spread) {
        PyMem_Free(spread);
        PyErr_NoMemory();
        return -1;
    }
    for (occupied = 0; occupied < (1 << w); occupied++)
        self->row_landings[occupied] =
            landings((u64)occupied, w, strchr(sides, 'l') != NULL, strchr(sides, 'r') != NULL);
    for (occupied = 0; occupied < (1 << h); occupied++) {
        for (r = 0; r < h; r++)
            if (occupied >> r & 1)
                spread[occupied] |= (u128)1 << (r * rs);
    }
    for (occupied = 0; occupied < (1 << h); occupied++) {
        u64 local = landings((u64)occupied, h, strchr(sides, 't') != NULL, strchr(sides, 'b') != NULL);
        self->column_landings[occupied] = spread[local];
    }
    column_clear = spread[self->column_full];
    PyMem_Free(spread);
    self->symmetry_count = (int)PyList_Size(symmetries);
    if (self->symmetry_count == 0)
        self->symmetry_count = 1;
    for (r = 0; r < h; r++) {
        for (c = 0; c < w; c++) {
            int index = r * rs + c, compact = r * w + c, count = 0, start;
            self->cell_index[compact] = index;
            self->bit_t[index] = (u128)1 << (c * cs + r);
            self->row_shift[index] = r * rs;
            self->column_shift[index] = c * cs;
            self->column_of[index] = c;
            self->row_cells[index] = (u128)self->row_full << (r * rs);
            self->column_cells[index] = column_clear << c;
            for (k = 0; k < 4; k++) {
                dc = directions[k][0];
                dr = directions[k][1];
                for (start = -3; start <= 0; start++) {
                    int step, inside = 1;
                    for (step = 0; step < 4; step++) {
                        int x = c + dc * (start + step), y = r + dr * (start + step);
                        if (x < 0 || x >= w || y < 0 || y >= h)
                            inside = 0;
                    }
                    count += inside;
                }
            }
            self->weight[index] = count;
            for (k = 0; k < self->symmetry_count; k++) {
                long image = compact;
                if (PyList_Size(symmetries) > 0) {
                    PyObject *permutation = PyList_GetItem(symmetries, k);
                    PyObject *item = permutation ? PySequence_GetItem(permutation, compact) : NULL;
                    if (item == NULL)
                        return -1;
                    image = PyLong_AsLong(item);
                    Py_DECREF(item);
                    if (image == -1 && PyErr_Occurred())
                        return -1;
                }
                self->x_weights[index][k] = (u128)1 << image;
                self->o_weights[index][k] = (u128)1 << (self->cells + image);
            }
        }
    }
    return 0;
}

static int supported(int width, int height, const char *sides)
{
    if (width < 1 || height < 1 || width > MAX_SIDE || height > MAX_SIDE)
        return 0;
    if (strcmp(sides, "t") == 0)
        return width * (height + 1) <= 64 && 3 * (height + 2) < 64;
    return width * height <= 64 && height * (width + 1) <= 128 && width * (height + 1) <= 128;
}

/* -- the importers' key replay ------------------------------------------------------- */

/*
 * Replay(width, height, sides, line_length): GravityRules.replay_entry_keys for
 * canonical entry tokens, for any board GravityRules allows (2..16 cells a side).
 * The position is kept as its key without the side bit: x's pieces at bits 0..n-1,
 * o's at n..2n-1 (n = width * height), in little-endian 64-bit words, so a key
 * after a move is those words with the side bit 2n set or not. Anything it does
 * not decide (a token other than a canonical entry code, a full entry cell, a move
 * after a line, a ply out of range) makes it give up with None: the caller's
 * checked Python loop then replays the record and finds the exact problem.
 */

#define REPLAY_MAX_SIDE 16
#define REPLAY_MAX_CELLS (REPLAY_MAX_SIDE * REPLAY_MAX_SIDE)
#define REPLAY_WORDS ((2 * REPLAY_MAX_CELLS + 1 + 63) / 64)
#define REPLAY_LABELS_KEPT 1024

typedef struct {
    PyObject_HEAD
    int width, height, cells, line_length, key_bytes, board_bytes;
    int count[4];       /* entries of each side t, b, l, r (0: no such entry side) */
    int path_length[4]; /* cells a piece entering from that side may pass */
    short paths[4][REPLAY_MAX_SIDE][REPLAY_MAX_SIDE]; /* from the entry cell on */
    PyObject *labels; /* list: labels[p] = ((p >> 1) + 1, not p & 1), grown on use */
    PyObject *sides;  /* the entry sides as given, for pickling */
} ReplayObject;

static inline int replay_bit(const u64 *words, int bit)
{
    return (int)(words[bit >> 6] >> (bit & 63) & 1);
}

static inline void replay_set(u64 *words, int bit)
{
    words[bit >> 6] |= (u64)1 << (bit & 63);
}

/* A non-negative int from the first `size` bytes of little-endian words. */
static PyObject *replay_long(const u64 *words, size_t size)
{
#if PY_LITTLE_ENDIAN
    return _PyLong_FromByteArray((const unsigned char *)words, size, 1, 0);
#else
    unsigned char bytes[REPLAY_WORDS * 8];
    size_t i;
    for (i = 0; i < size; i++)
        bytes[i] = (unsigned char)(words[i / 8] >> (8 * (i % 8)));
    return _PyLong_FromByteArray(bytes, size, 1, 0);
#endif
}

/* The side index (0..3 for t, b, l, r) and entry index (from 1) of a canonical
   entry token of this board, or 0 if `token` is none. */
static int replay_token(const ReplayObject *self, PyObject *token, int *side, int *index)
{
    const char *text;
    Py_ssize_t length;
    int value;
    if (!PyUnicode_CheckExact(token) || !PyUnicode_IS_COMPACT_ASCII(token))
        return 0;
    length = PyUnicode_GET_LENGTH(token);
    if (length < 2 || length > 3)
        return 0;
    text = (const char *)PyUnicode_DATA(token);
    switch (text[0]) {
    case 't': *side = 0; break;
    case 'b': *side = 1; break;
    case 'l': *side = 2; break;
    case 'r': *side = 3; break;
    default: return 0;
    }
    if (text[1] < '1' || text[1] > '9')
        return 0;
    value = text[1] - '0';
    if (length == 3) {
        if (text[2] < '0' || text[2] > '9')
            return 0;
        value = value * 10 + (text[2] - '0');
    }
    if (value > self->count[*side])
        return 0;
    *index = value;
    return 1;
}

/* The move number label before ply `ply` (a new reference), shared while the ply
   is small. */
static PyObject *replay_label(ReplayObject *self, long long ply)
{
    PyObject *label;
    if (ply < PyList_GET_SIZE(self->labels)) {
        label = PyList_GET_ITEM(self->labels, ply);
        Py_INCREF(label);
        return label;
    }
    label = Py_BuildValue("(LO)", (ply >> 1) + 1, (ply & 1) ? Py_False : Py_True);
    if (label != NULL && ply == PyList_GET_SIZE(self->labels) && ply < REPLAY_LABELS_KEPT) {
        if (PyList_Append(self->labels, label) < 0) {
            Py_DECREF(label);
            return NULL;
        }
    }
    return label;
}

static int Replay_init(ReplayObject *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"width", "height", "sides", "line_length", NULL};
    static const char side_letters[] = "tblr";
    int width, height, line_length, side, index, k;
    const char *sides;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iisi", names, &width, &height, &sides,
                                     &line_length))
        return -1;
    if (width < 2 || height < 2 || width > REPLAY_MAX_SIDE || height > REPLAY_MAX_SIDE ||
        line_length < 2 || line_length > (width > height ? width : height)) {
        PyErr_Format(PyExc_ValueError, "no gravity board is %dx%d with lines of %d", width,
                     height, line_length);
        return -1;
    }
    self->width = width;
    self->height = height;
    self->cells = width * height;
    self->line_length = line_length;
    self->key_bytes = (2 * self->cells + 1 + 7) / 8;
    self->board_bytes = (2 * self->cells + 7) / 8;
    for (side = 0; side < 4; side++) {
        int vertical = side < 2;
        self->count[side] = strchr(sides, side_letters[side]) != NULL ? (vertical ? width : height) : 0;
        self->path_length[side] = vertical ? height : width;
        for (index = 0; index < self->count[side]; index++)
            for (k = 0; k < self->path_length[side]; k++) {
                int column, row;
                switch (side) {
                case 0: column = index; row = k; break;
                case 1: column = index; row = height - 1 - k; break;
                case 2: column = k; row = index; break;
                default: column = width - 1 - k; row = index; break;
                }
                self->paths[side][index][k] = (short)(row * width + column);
            }
    }
    Py_XSETREF(self->labels, PyList_New(0));
    if (self->labels == NULL)
        return -1;
    Py_XSETREF(self->sides, PyUnicode_FromString(sides));
    if (self->sides == NULL)
        return -1;
    return 0;
}

static void Replay_dealloc(ReplayObject *self)
{
    Py_XDECREF(self->labels);
    Py_XDECREF(self->sides);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The union of the lines of line_length own pieces (`own`: bit offset of the mover's
   pieces) through `cell`, set into `line`; whether there is one. */
static int replay_lines(const ReplayObject *self, const u64 *words, int own, int cell, u64 *line)
{
    static const int directions[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    const int w = self->width, h = self->height, n = self->line_length;
    const int column = cell % w, row = cell / w;
    int k, found = 0;
    for (k = 0; k < 4; k++) {
        const int dc = directions[k][0], dr = directions[k][1];
        int back = 0, ahead = 0, c, r, step;
        for (c = column - dc, r = row - dr; back < n - 1 && c >= 0 && c < w && r >= 0 && r < h &&
                                            replay_bit(words, own + r * w + c);
             c -= dc, r -= dr)
            back++;
        for (c = column + dc, r = row + dr; ahead < n - 1 && c >= 0 && c < w && r >= 0 && r < h &&
                                             replay_bit(words, own + r * w + c);
             c += dc, r += dr)
            ahead++;
        if (back + 1 + ahead < n)
            continue;
        found = 1;
        for (step = -back; step <= ahead; step++)
            replay_set(line, (row + dr * step) * w + column + dc * step);
    }
    return found;
}

/* BLAKE2b (RFC 7693) with an 8-byte digest and no key, over `prefix` then `data`:
   what hashlib.blake2b(prefix + data, digest_size=8) computes, its digest read as a
   little-endian u64. The import folds every key by it (partita.database.keys), so
   it is done here rather than through hashlib's objects, three calls a key. */
static const u64 blake2b_iv[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL,
                                  0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
                                  0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                                  0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

static const unsigned char blake2b_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3}};

#define BLAKE2B_BLOCK 128

typedef struct {
    u64 h[8];
    u64 counter; /* bytes hashed so far (the counter's high word stays 0 here) */
    unsigned char block[BLAKE2B_BLOCK];
    size_t filled;
} Blake2b;

static u64 blake2b_rotr(u64 value, int bits)
{
    return value >> bits | value << (64 - bits);
}

static void blake2b_compress(Blake2b *state, const unsigned char *block, int last)
{
    u64 m[16], v[16];
    int i;
#if PY_LITTLE_ENDIAN
    memcpy(m, block, sizeof m);
#else
    for (i = 0; i < 16; i++) {
        int b;
        m[i] = 0;
        for (b = 7; b >= 0; b--)
            m[i] = m[i] << 8 | block[8 * i + b];
    }
#endif
    for (i = 0; i < 8; i++) {
        v[i] = state->h[i];
        v[i + 8] = blake2b_iv[i];
    }
    v[12] ^= state->counter;
    if (last)
        v[14] = ~v[14];
#define BLAKE2B_G(r, i, a, b, c, d)                                                      \
    do {                                                                                 \
        v[a] = v[a] + v[b] + m[blake2b_sigma[r][2 * (i)]];                               \
        v[d] = blake2b_rotr(v[d] ^ v[a], 32);                                            \
        v[c] = v[c] + v[d];                                                              \
        v[b] = blake2b_rotr(v[b] ^ v[c], 24);                                            \
        v[a] = v[a] + v[b] + m[blake2b_sigma[r][2 * (i) + 1]];                           \
        v[d] = blake2b_rotr(v[d] ^ v[a], 16);                                            \
        v[c] = v[c] + v[d];                                                              \
        v[b] = blake2b_rotr(v[b] ^ v[c], 63);                                            \
    } while (0)
#define BLAKE2B_ROUND(r)                                                                 \
    do {                                                                                 \
        BLAKE2B_G(r, 0, 0, 4, 8, 12);                                                    \
        BLAKE2B_G(r, 1, 1, 5, 9, 13);                                                    \
        BLAKE2B_G(r, 2, 2, 6, 10, 14);                                                   \
        BLAKE2B_G(r, 3, 3, 7, 11, 15);                                                   \
        BLAKE2B_G(r, 4, 0, 5, 10, 15);                                                   \
        BLAKE2B_G(r, 5, 1, 6, 11, 12);                                                   \
        BLAKE2B_G(r, 6, 2, 7, 8, 13);                                                    \
        BLAKE2B_G(r, 7, 3, 4, 9, 14);                                                    \
    } while (0)
    /* Unrolled, so that every message index is a constant. */
    BLAKE2B_ROUND(0);
    BLAKE2B_ROUND(1);
    BLAKE2B_ROUND(2);
    BLAKE2B_ROUND(3);
    BLAKE2B_ROUND(4);
    BLAKE2B_ROUND(5);
    BLAKE2B_ROUND(6);
    BLAKE2B_ROUND(7);
    BLAKE2B_ROUND(8);
    BLAKE2B_ROUND(9);
    BLAKE2B_ROUND(10);
    BLAKE2B_ROUND(11);
#undef BLAKE2B_ROUND
#undef BLAKE2B_G
    for (i = 0; i < 8; i++)
        state->h[i] ^= v[i] ^ v[i + 8];
}

/* Hashes `size` more bytes. A full block is compressed only once more input
   follows it: the last block, full or not, is compressed by blake2b_digest. */
static void blake2b_update(Blake2b *state, const unsigned char *data, size_t size)
{
    while (size > 0) {
        size_t room;
        if (state->filled == BLAKE2B_BLOCK) {
            state->counter += BLAKE2B_BLOCK;
            blake2b_compress(state, state->block, 0);
            state->filled = 0;
        }
        room = BLAKE2B_BLOCK - state->filled;
        if (room > size)
            room = size;
        memcpy(state->block + state->filled, data, room);
        state->filled += room;
        data += room;
        size -= room;
    }
}

/* The 8-byte digest, read as a little-endian u64 (the first word of the state). */
static u64 blake2b_digest(Blake2b *state)
{
    state->counter += state->filled;
    memset(state->block + state->filled, 0, BLAKE2B_BLOCK - state->filled);
    blake2b_compress(state, state->block, 1);
    return state->h[0];
}

/* The state after the game's prefix: an unkeyed hash with an 8-byte digest. */
static void blake2b_start(Blake2b *state, const unsigned char *prefix, size_t size)
{
    memcpy(state->h, blake2b_iv, sizeof state->h);
    state->h[0] ^= 0x01010000ULL ^ 8; /* fanout 1, depth 1, no key, digest 8 bytes */
    state->counter = 0;
    state->filled = 0;
    blake2b_update(state, prefix, size);
}

/* The fold of the key in `words` as the archive defines it (partita.database.keys:
   KeyListFolder.int_prefixes): BLAKE2b of the opaque prefix the archive gives for
   the key's length, then the key's own bytes (two's complement, little-endian, the
   fewest that hold the sign bit), 8 bytes of digest read as a signed little-endian
   int. NULL with an exception when `prefixes` has no prefix for that length. */
static PyObject *replay_fold(PyObject *prefixes, const u64 *words, int key_words)
{
    unsigned char data[REPLAY_WORDS * 8 + 1];
    Blake2b state;
    PyObject *prefix;
    int top = key_words - 1, bits, size, i;
    while (top > 0 && !words[top])
        top--;
    bits = words[top] ? 64 * top + 64 - __builtin_clzll(words[top]) : 0;
    size = (bits + 8) >> 3;
    if (size >= PyTuple_GET_SIZE(prefixes)) {
        PyErr_SetString(PyExc_ValueError, "no fold prefix for a key this long");
        return NULL;
    }
    prefix = PyTuple_GET_ITEM(prefixes, size);
    if (!PyBytes_Check(prefix)) {
        PyErr_SetString(PyExc_TypeError, "the fold prefixes are bytes");
        return NULL;
    }
    for (i = 0; i < size; i++)
        data[i] = (unsigned char)(i / 8 < REPLAY_WORDS ? words[i / 8] >> (8 * (i % 8)) : 0);
    blake2b_start(&state, (const unsigned char *)PyBytes_AS_STRING(prefix),
                  (size_t)PyBytes_GET_SIZE(prefix));
    blake2b_update(&state, data, (size_t)size);
    return PyLong_FromLongLong((long long)blake2b_digest(&state));
}

static PyObject *Replay_keys(ReplayObject *self, PyObject *args)
{
    PyObject *board_bytes, *ply_object, *tokens, *prefixes = Py_None, *sequence = NULL;
    PyObject *keys = NULL, *labels = NULL, *result = NULL, *board = NULL, *line_long = NULL;
    PyObject **items;
    u64 words[REPLAY_WORDS], line[REPLAY_WORDS];
    const int n = self->cells, side_bit = 2 * self->cells, key_words = side_bit / 64 + 1;
    Py_ssize_t count, i;
    long long ply;
    int overflow, lined = 0;
    if (!PyArg_ParseTuple(args, "O!OO|O", &PyBytes_Type, &board_bytes, &ply_object, &tokens,
                          &prefixes))
        return NULL;
    if (prefixes != Py_None && !PyTuple_Check(prefixes)) {
        PyErr_SetString(PyExc_TypeError, "the fold prefixes are a tuple of bytes or None");
        return NULL;
    }
    if (self->labels == NULL) {
        PyErr_SetString(PyExc_ValueError, "this Replay was never initialised");
        return NULL;
    }
    if (PyBytes_GET_SIZE(board_bytes) != self->board_bytes) {
        PyErr_SetString(PyExc_ValueError, "the board is not 2 * width * height bits");
        return NULL;
    }
    ply = PyLong_AsLongLongAndOverflow(ply_object, &overflow);
    if (ply == -1 && PyErr_Occurred())
        return NULL;
    if (overflow || ply < 0 || ply > ((long long)1 << 60))
        Py_RETURN_NONE;
    memset(words, 0, sizeof words);
    memset(line, 0, sizeof line);
#if PY_LITTLE_ENDIAN
    memcpy(words, PyBytes_AS_STRING(board_bytes), (size_t)self->board_bytes);
#else
    for (i = 0; i < self->board_bytes; i++)
        words[i / 8] |= (u64)(unsigned char)PyBytes_AS_STRING(board_bytes)[i] << (8 * (i % 8));
#endif
    sequence = PySequence_Fast(tokens, "the tokens are a sequence");
    if (sequence == NULL)
        return NULL;
    count = PySequence_Fast_GET_SIZE(sequence);
    items = PySequence_Fast_ITEMS(sequence);
    keys = PyList_New(count);
    labels = PyList_New(count);
    if (keys == NULL || labels == NULL)
        goto done;
    for (i = 0; i < count; i++) {
        int side, index, k, landing, own;
        const short *path;
        PyObject *key, *label;
        if (lined || !replay_token(self, items[i], &side, &index))
            goto give_up;
        path = self->paths[side][index - 1];
        if (replay_bit(words, path[0]) || replay_bit(words, n + path[0]))
            goto give_up; /* the entry cell is taken */
        landing = path[self->path_length[side] - 1];
        for (k = 1; k < self->path_length[side]; k++)
            if (replay_bit(words, path[k]) || replay_bit(words, n + path[k])) {
                landing = path[k - 1];
                break;
            }
        own = (ply & 1) ? n : 0;
        replay_set(words, own + landing);
        label = replay_label(self, ply);
        if (label == NULL)
            goto done;
        PyList_SET_ITEM(labels, i, label);
        ply++;
        lined = replay_lines(self, words, own, landing, line);
        if (ply & 1)
            replay_set(words, side_bit);
        if (prefixes == Py_None)
            key = replay_long(words, (size_t)self->key_bytes);
        else
            key = replay_fold(prefixes, words, key_words);
        words[side_bit >> 6] &= ~((u64)1 << (side_bit & 63));
        if (key == NULL)
            goto done;
        PyList_SET_ITEM(keys, i, key);
    }
    board = replay_long(words, (size_t)self->board_bytes);
    line_long = board == NULL ? NULL : replay_long(line, (size_t)self->board_bytes);
    if (line_long != NULL)
        result = Py_BuildValue("(OOOLO)", keys, labels, board, ply, line_long);
    goto done;
give_up:
    result = Py_None;
    Py_INCREF(result);
done:
    Py_XDECREF(board);
    Py_XDECREF(line_long);
    Py_XDECREF(keys);
    Py_XDECREF(labels);
    Py_DECREF(sequence);
    return result;
}

static PyObject *Replay_reduce(ReplayObject *self, PyObject *unused)
{
    if (self->sides == NULL) {
        PyErr_SetString(PyExc_ValueError, "this Replay was never initialised");
        return NULL;
    }
    return Py_BuildValue("(O(iiOi))", (PyObject *)Py_TYPE(self), self->width, self->height,
                         self->sides, self->line_length);
}

static PyMethodDef Replay_methods[] = {
    {"__reduce__", (PyCFunction)Replay_reduce, METH_NOARGS,
     "Pickled as its constructor's arguments (a game notation holding one pickles)."},
    {"keys", (PyCFunction)Replay_keys, METH_VARARGS,
     "keys(board, ply, tokens, prefixes=None): (keys, labels, board, ply, line) after "
     "canonical entry tokens from the position whose x | o << width * height is `board` "
     "(little-endian bytes) at `ply`, as GravityRules.replay_entry_keys gives them; None "
     "when a token is not a legal canonical entry code (the caller's Python loop then "
     "decides). With `prefixes` (a tuple of bytes, the archive's opaque prefix for each "
     "length of a key's own bytes: partita.database.keys.KeyListFolder.int_prefixes), the "
     "keys come folded: blake2b of the prefix, then the key's bytes."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject ReplayType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "partita.games.gravity._native.Replay",
    .tp_doc = "Replay(width, height, sides, line_length): the importers' key replay.",
    .tp_basicsize = sizeof(ReplayObject),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Replay_init,
    .tp_dealloc = (destructor)Replay_dealloc,
    .tp_methods = Replay_methods,
};

/* -- the Python type ------------------------------------------------------------------ */

static int Search_init(SearchObject *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"width", "height", "sides", "symmetries", "table_size", NULL};
    int width, height;
    const char *sides;
    PyObject *symmetries, *time_module;
    Py_ssize_t table_size;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iisO!n", names, &width, &height, &sides,
                                     &PyList_Type, &symmetries, &table_size))
        return -1;
    if (!supported(width, height, sides)) {
        PyErr_Format(PyExc_ValueError, "the compiled core does not handle a %dx%d board", width,
                     height);
        return -1;
    }
    if (PyList_Size(symmetries) > MAX_SYMMETRIES) {
        PyErr_SetString(PyExc_ValueError, "at most 8 symmetries");
        return -1;
    }
    self->width = width;
    self->height = height;
    self->cells = width * height;
    self->top_only = strcmp(sides, "t") == 0;
    self->table_size = table_size < 1 ? 1 : table_size;
    self->nodes = 0;
    self->node_limit = -1;
    self->next_check = 0;
    self->deadline = -1;
    self->stop = STOP_NONE;
    self->min_score = -(self->cells / 2) + 3;
    {
        int max_score = (self->cells + 1) / 2 - 3;
        self->lower_offset = max_score - 2 * self->min_score + 2;
        self->lower_base = max_score - self->min_score + 1;
        if (self->lower_offset + max_score > 255) {
            PyErr_SetString(PyExc_ValueError, "board too large for the compiled core");
            return -1;
        }
    }
    time_module = PyImport_ImportModule("time");
    if (time_module == NULL)
        return -1;
    self->perf_counter = PyObject_GetAttrString(time_module, "perf_counter");
    Py_DECREF(time_module);
    if (self->perf_counter == NULL)
        return -1;
    if (self->top_only) {
        self->keys_low = table_alloc((size_t)self->table_size, sizeof(u64));
        self->values = table_alloc((size_t)self->table_size, 1);
    }
    else
        self->entries = table_alloc((size_t)self->table_size, sizeof(AnyEntry));
    if (self->top_only ? !self->keys_low || !self->values : !self->entries) {
        PyErr_NoMemory();
        return -1;
    }
    if (self->top_only)
        return setup_top(self);
    return setup_any(self, sides, symmetries);
}

static void Search_dealloc(SearchObject *self)
{
    free(self->keys_low);
    free(self->values);
    free(self->entries);
    PyMem_Free(self->row_landings);
    PyMem_Free(self->column_landings);
    Py_XDECREF(self->perf_counter);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *raise_exhausted(SearchObject *self)
{
    PyObject *module, *kind, *error;
    const char *reason = self->stop == STOP_TIME ? "time" : "nodes";
    self->stop = STOP_NONE;
    module = PyImport_ImportModule("partita.games.gravity._search");
    if (module == NULL)
        return NULL;
    kind = PyObject_GetAttrString(module, "SearchExhausted");
    Py_DECREF(module);
    if (kind == NULL)
        return NULL;
    error = PyObject_CallFunction(kind, "Lsii", self->nodes, reason, self->bound_low,
                                  self->bound_high);
    if (error != NULL) {
        PyErr_SetObject(kind, error);
        Py_DECREF(error);
    }
    Py_DECREF(kind);
    return NULL;
}

static PyObject *Search_score(SearchObject *self, PyObject *args)
{
    unsigned long long x, o;
    int result;
    if (!PyArg_ParseTuple(args, "KK", &x, &o))
        return NULL;
    self->stop = STOP_NONE;
    result = self->top_only ? top_solve(self, x, o) : any_solve(self, x, o);
    if (self->stop == STOP_ERROR) {
        self->stop = STOP_NONE;
        return NULL;
    }
    if (self->stop != STOP_NONE)
        return raise_exhausted(self);
    return PyLong_FromLong(result);
}

static PyObject *Search_clear(SearchObject *self, PyObject *unused)
{
    if (self->entries != NULL)
        memset(self->entries, 0, (size_t)self->table_size * sizeof(AnyEntry));
    else
        memset(self->values, 0, (size_t)self->table_size);
    memset(self->history, 0, sizeof self->history);
    Py_RETURN_NONE;
}

static PyObject *Search_set_budget(SearchObject *self, PyObject *args)
{
    PyObject *limit, *deadline;
    if (!PyArg_ParseTuple(args, "OO", &limit, &deadline))
        return NULL;
    if (limit == Py_None)
        self->node_limit = -1;
    else {
        self->node_limit = PyLong_AsLongLong(limit);
        if (self->node_limit == -1 && PyErr_Occurred())
            return NULL;
    }
    if (deadline == Py_None)
        self->deadline = -1;
    else {
        self->deadline = PyFloat_AsDouble(deadline);
        if (self->deadline == -1 && PyErr_Occurred())
            return NULL;
    }
    self->next_check = self->nodes;
    Py_RETURN_NONE;
}

static PyObject *Search_entries(SearchObject *self, PyObject *unused)
{
    Py_ssize_t slot, count = 0;
    for (slot = 0; slot < self->table_size; slot++)
        count += (self->entries != NULL ? self->entries[slot].value : self->values[slot]) != 0;
    return PyLong_FromSsize_t(count);
}

static PyObject *Search_get_nodes(SearchObject *self, void *closure)
{
    return PyLong_FromLongLong(self->nodes);
}

static PyObject *Search_get_table_size(SearchObject *self, void *closure)
{
    return PyLong_FromSsize_t(self->table_size);
}

static PyMethodDef Search_methods[] = {
    {"score", (PyCFunction)Search_score, METH_VARARGS,
     "score(x, o): the exact score of a position given by compact bitboards."},
    {"clear", (PyCFunction)Search_clear, METH_NOARGS, "Empty the transposition table."},
    {"set_budget", (PyCFunction)Search_set_budget, METH_VARARGS,
     "set_budget(node_limit, deadline): stop at this node total or perf_counter value."},
    {"entries", (PyCFunction)Search_entries, METH_NOARGS,
     "How many slots of the transposition table hold a position."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Search_getset[] = {
    {"nodes", (getter)Search_get_nodes, NULL, "Nodes searched so far.", NULL},
    {"table_size", (getter)Search_get_table_size, NULL, "Slots of the transposition table.",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject SearchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "partita.games.gravity._native.Search",
    .tp_doc = "Search(width, height, sides, symmetries, table_size): exact gravity search.",
    .tp_basicsize = sizeof(SearchObject),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Search_init,
    .tp_dealloc = (destructor)Search_dealloc,
    .tp_methods = Search_methods,
    .tp_getset = Search_getset,
};

static PyObject *native_supports(PyObject *module, PyObject *args)
{
    int width, height;
    const char *sides;
    if (!PyArg_ParseTuple(args, "iis", &width, &height, &sides))
        return NULL;
    return PyBool_FromLong(supported(width, height, sides));
}

static PyMethodDef module_methods[] = {
    {"supports", native_supports, METH_VARARGS,
     "supports(width, height, sides): whether the compiled core handles this board."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "_native", "Compiled core of the gravity games: the solver's search, the importers' key replay.", -1,
    module_methods};

PyMODINIT_FUNC PyInit__native(void)
{
    PyObject *module;
    if (PyType_Ready(&SearchType) < 0 || PyType_Ready(&ReplayType) < 0)
        return NULL;
    module = PyModule_Create(&native_module);
    if (module == NULL)
        return NULL;
    Py_INCREF(&SearchType);
    if (PyModule_AddObject(module, "Search", (PyObject *)&SearchType) < 0) {
        Py_DECREF(&SearchType);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&ReplayType);
    if (PyModule_AddObject(module, "Replay", (PyObject *)&ReplayType) < 0) {
        Py_DECREF(&ReplayType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
