/* The SDK parser's glance in C: one pass over a line that validates it as JSON and keeps
 * the few fields the graph needs, for the common shape of a conversation row.
 *
 * ``parse._glance_lines`` (Python, msgspec) is the algorithm; this is its fast path and
 * nothing more. A line is *accepted* only when its row is a plain one: an object whose
 * ``uuid`` is a string, whose ``type`` is user, assistant, progress or system (not a
 * voice-call row), with no sidechain or team, every field the facts read an unescaped
 * string, null, a boolean or absent as the Python glance expects. Anything else -- an
 * escaped key or value the facts read, a lone surrogate escape (``JSON.parse`` keeps it,
 * msgspec and orjson refuse it), nesting past MAX_DEPTH, bytes before the value, a line
 * that is not JSON -- is *refused*: handed whole to the Python callback, which glances at
 * it or parses it exactly. Refusing is always safe; accepting must give what the Python
 * glance gives (``tests/test_reference_native.py``, the ``glance-c`` fuzz target).
 *
 * Like msgspec's, this validation does not check the UTF-8 of the strings it skips:
 * the parser reports such lines when its diagnostics are read (``utf8.py``).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
/* RECHAIN_NO_SIMD: the portable 8-byte steps alone (how the tests reach them on x86-64) */
#if defined(__SSE2__) && !defined(RECHAIN_NO_SIMD)
#define RECHAIN_SSE2 1
#include <emmintrin.h>
#endif

#define MAX_DEPTH 256

enum { ABSENT = 0, STR, STR_ESCAPED, NUL, TRUE_, FALSE_, OTHER };

typedef struct {
    int kind;
    const char *s;  /* a string's bytes between its quotes */
    Py_ssize_t n;
} Val;

typedef struct {
    int type;  /* 0: other, 1: tool_use, 2: tool_result, -1: an escaped type */
    Val id, tool_use_id;
} Block;

typedef struct {
    const unsigned char *p, *end;
    Block *blocks;
    Py_ssize_t nblocks, capacity;
} Cursor;

typedef struct {
    Val uuid, type, parent, subtype, side, team, agent, meta, quiet, hidden, ran_by,
        source, stamp, message_id;
} Fields;

/* the objects the parser shares with this module (``configure``) */
static PyObject *pending_type, *undefined, *unkept, *main_writer, *kinds[4];
static const char *kind_names[4] = {"user", "assistant", "progress", "system"};

static const uint64_t ONES = 0x0101010101010101ULL, HIGHS = 0x8080808080808080ULL;

static inline int special(unsigned char ch) { return ch == '"' || ch == '\\' || ch < 0x20; }

/* The first byte from ``p`` that ends a run of a string's plain bytes: a quote, a
 * backslash or a control byte (``end`` if none). Most of a line is string bytes, so this
 * is most of the glance: 16 bytes a step where SSE2 is (every x86-64), else 8. */
static inline const unsigned char *plain_run(const unsigned char *p, const unsigned char *end) {
#if defined(RECHAIN_SSE2)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                  control = _mm_set1_epi8(0x1f);
    while (end - p >= 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)p);
        __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote),
                                                _mm_cmpeq_epi8(x, backslash)),
                                   _mm_cmpeq_epi8(_mm_max_epu8(x, control), control));
        int mask = _mm_movemask_epi8(hit);
        if (mask) return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
#endif
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        uint64_t q = x ^ (ONES * '"'), b = x ^ (ONES * '\\');
        /* any byte that may be special (false alarms only) */
        if ((((q - ONES) & ~q) | ((b - ONES) & ~b) | ((x - ONES * 0x20) & ~x)) & HIGHS) break;
        p += 8;
    }
    while (p < end && !special(*p)) p++;
    return p;
}

/* JSON's whitespace but the LF, which a line never holds (an LF in a span is not read
 * past: the line is refused). */
static inline void skip_ws(Cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
        c->p++;
}

static inline int hex(unsigned char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* A string at c->p (its opening quote): 0 and its span in ``out``, -1 when invalid or a
 * surrogate escape (refused: ``JSON.parse`` takes lone ones, msgspec and orjson do not). */
static int string(Cursor *c, Val *out) {
    const unsigned char *p = c->p + 1, *end = c->end;
    int escaped = 0;
    for (;;) {
        p = plain_run(p, end);
        if (p >= end) return -1;
        unsigned char ch = *p;
        if (ch == '"') break;
        if (ch != '\\') return -1;  /* a control byte */
        escaped = 1;
        if (end - p < 2) return -1;
        ch = p[1];
        if (ch == 'u') {
            if (end - p < 6) return -1;
            int a = hex(p[2]), b = hex(p[3]), d = hex(p[4]), e = hex(p[5]);
            if ((a | b | d | e) < 0) return -1;
            if (a == 0xD && b >= 8) {  /* a surrogate: only a high one then a low one */
                if (b >= 0xC || end - p < 12 || p[6] != '\\' || p[7] != 'u' ||
                    (hex(p[8]) != 0xD) || hex(p[9]) < 0xC || hex(p[10]) < 0 || hex(p[11]) < 0)
                    return -1;
                p += 6;
            }
            p += 6;
        } else if (ch == '"' || ch == '\\' || ch == '/' || ch == 'b' || ch == 'f' ||
                   ch == 'n' || ch == 'r' || ch == 't') {
            p += 2;
        } else {
            return -1;
        }
    }
    if (out) {
        out->kind = escaped ? STR_ESCAPED : STR;
        out->s = (const char *)c->p + 1;
        out->n = (const char *)p - out->s;
    }
    c->p = p + 1;
    return 0;
}

static int number(Cursor *c) {
    const unsigned char *p = c->p, *end = c->end;
    if (p < end && *p == '-') p++;
    if (p >= end) return -1;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') { while (p < end && *p >= '0' && *p <= '9') p++; }
    else return -1;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || *p < '0' || *p > '9') return -1;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || *p < '0' || *p > '9') return -1;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    c->p = p;
    return 0;
}

static inline int word(Cursor *c, const char *text, Py_ssize_t n) {
    if (c->end - c->p < n || memcmp(c->p, text, n) != 0) return -1;
    c->p += n;
    return 0;
}

static int value(Cursor *c, Val *out, int depth);

/* An object's or array's members, each value read by ``member`` (-1 refuses); ``key`` is
 * NULL for an array's. */
typedef int (*Member)(Cursor *c, const Val *key, void *state, int depth);

/* The members of the object (``close`` '}') or array (']') at c->p. */
static int members(Cursor *c, Member member, void *state, int depth, unsigned char close) {
    if (depth > MAX_DEPTH) return -1;
    c->p++;
    skip_ws(c);
    if (c->p < c->end && *c->p == close) { c->p++; return 0; }
    for (;;) {
        Val name, *key = NULL;
        if (close == '}') {
            if (c->p >= c->end || *c->p != '"' || string(c, &name) < 0) return -1;
            skip_ws(c);
            if (c->p >= c->end || *c->p != ':') return -1;
            c->p++;
            skip_ws(c);
            key = &name;
        }
        if (member ? member(c, key, state, depth) < 0 : value(c, NULL, depth) < 0) return -1;
        skip_ws(c);
        if (c->p >= c->end) return -1;
        if (*c->p == close) { c->p++; return 0; }
        if (*c->p != ',') return -1;
        c->p++;
        skip_ws(c);
    }
}

static inline int object(Cursor *c, Member member, void *state, int depth) {
    return members(c, member, state, depth, '}');
}

static inline int array(Cursor *c, Member element, void *state, int depth) {
    return members(c, element, state, depth, ']');
}

/* Any value, validated; ``out`` (if given) says which kind, and a string's span. */
static int value(Cursor *c, Val *out, int depth) {
    Val ignored;
    if (!out) out = &ignored;
    if (c->p >= c->end) return -1;
    switch (*c->p) {
    case '"': return string(c, out);
    case '{': out->kind = OTHER; return object(c, NULL, NULL, depth + 1);
    case '[': out->kind = OTHER; return array(c, NULL, NULL, depth + 1);
    case 't': out->kind = TRUE_; return word(c, "true", 4);
    case 'f': out->kind = FALSE_; return word(c, "false", 5);
    case 'n': out->kind = NUL; return word(c, "null", 4);
    default: out->kind = OTHER; return number(c);
    }
}

/* Whether a string's unescaped bytes (a key or a value) are ``text``. */
static inline int equals(const Val *v, const char *text) {
    Py_ssize_t n = (Py_ssize_t)strlen(text);
    return v->n == n && memcmp(v->s, text, n) == 0;
}

static int block_member(Cursor *c, const Val *key, void *state, int depth) {
    Block *block = state;
    if (key->kind == STR_ESCAPED) return -1;  /* an escaped name may be one of these */
    if (equals(key, "type")) {
        Val type;
        if (value(c, &type, depth) < 0) return -1;
        if (type.kind == STR_ESCAPED) block->type = -1;
        else if (type.kind == STR && equals(&type, "tool_use")) block->type = 1;
        else if (type.kind == STR && equals(&type, "tool_result")) block->type = 2;
        else block->type = 0;
        return 0;
    }
    if (equals(key, "id")) return value(c, &block->id, depth);
    if (equals(key, "tool_use_id")) return value(c, &block->tool_use_id, depth);
    return value(c, NULL, depth);
}

static int content_element(Cursor *c, const Val *key, void *state, int depth) {
    (void)key;
    (void)state;
    if (c->p >= c->end || *c->p != '{') return value(c, NULL, depth);  /* not a block */
    if (c->nblocks == c->capacity) {
        Py_ssize_t more = c->capacity ? c->capacity * 2 : 16;
        Block *grown = PyMem_Realloc(c->blocks, (size_t)more * sizeof(Block));
        if (!grown) return -1;
        c->blocks = grown;
        c->capacity = more;
    }
    Block *block = &c->blocks[c->nblocks];
    memset(block, 0, sizeof(Block));
    if (object(c, block_member, block, depth + 1) < 0) return -1;
    c->nblocks++;
    return 0;
}

static int message_member(Cursor *c, const Val *key, void *state, int depth) {
    Fields *fields = state;
    if (key->kind == STR_ESCAPED) return -1;
    if (equals(key, "id")) return value(c, &fields->message_id, depth);
    if (equals(key, "content")) {
        c->nblocks = 0;  /* the last ``content`` wins */
        if (c->p < c->end && *c->p == '[') return array(c, content_element, NULL, depth + 1);
        return value(c, NULL, depth);
    }
    return value(c, NULL, depth);
}

static int row_member(Cursor *c, const Val *key, void *state, int depth) {
    Fields *f = state;
    Val *slot = NULL;
    if (key->kind == STR_ESCAPED) return -1;
#define LEN(name) (sizeof(name) - 1)
    switch (key->n) {
    case LEN("uuid"):  /* and "type" */
        if (equals(key, "uuid")) slot = &f->uuid;
        else if (equals(key, "type")) slot = &f->type;
        break;
    case LEN("subtype"):  /* and "agentId", "message" */
        if (equals(key, "subtype")) slot = &f->subtype;
        else if (equals(key, "agentId")) slot = &f->agent;
        else if (equals(key, "message")) {
            f->message_id.kind = ABSENT;  /* the last ``message`` wins */
            c->nblocks = 0;
            if (c->p < c->end && *c->p == '{')
                return object(c, message_member, f, depth + 1);
            return value(c, NULL, depth);
        }
        break;
    case LEN("isMeta"): if (equals(key, "isMeta")) slot = &f->meta; break;
    case LEN("teamName"): if (equals(key, "teamName")) slot = &f->team; break;
    case LEN("timestamp"): if (equals(key, "timestamp")) slot = &f->stamp; break;
    case LEN("parentUuid"): if (equals(key, "parentUuid")) slot = &f->parent; break;
    case LEN("isSidechain"): if (equals(key, "isSidechain")) slot = &f->side; break;
    case LEN("ranByToolUseId"): if (equals(key, "ranByToolUseId")) slot = &f->ran_by; break;
    case LEN("closesQuietTurn"): if (equals(key, "closesQuietTurn")) slot = &f->quiet; break;
    case LEN("hostHiddenToolUseIds"):
        if (equals(key, "hostHiddenToolUseIds")) slot = &f->hidden;
        break;
    case LEN("sourceToolAssistantUUID"):
        if (equals(key, "sourceToolAssistantUUID")) slot = &f->source;
        break;
    default: break;
    }
#undef LEN
    return value(c, slot, depth);
}

/* A string field as a ``str`` (its bytes UTF-8), NULL when they are not. */
static PyObject *text(const Val *v) {
    PyObject *s = PyUnicode_DecodeUTF8(v->s, v->n, NULL);
    if (!s) PyErr_Clear();
    return s;
}

static inline int absent_or(const Val *v, int kind) {
    return v->kind == ABSENT || v->kind == NUL || v->kind == kind;
}

/* The ``Pending`` row and its facts when the line is accepted (new references), else 0.
 * ``previous``: the last kept row's uuid, shared as the parent when equal. -1 on a
 * Python error (out of memory). */
static int accept(Cursor *c, const Fields *f, PyObject *buffer, Py_ssize_t start,
                  PyObject *previous, PyObject **row, PyObject **facts, PyObject **uuid_out) {
    int kind = -1;
    if (f->uuid.kind != STR || f->type.kind != STR) return 0;
    for (int k = 0; k < 4; k++) {
        if (equals(&f->type, kind_names[k])) kind = k;
    }
    if (kind < 0) return 0;
    if (kind == 3 && (f->subtype.kind == STR_ESCAPED ||
                      (f->subtype.kind == STR && equals(&f->subtype, "voice_call_talk"))))
        return 0;
    if (!absent_or(&f->side, FALSE_) || !absent_or(&f->team, NUL)) return 0;
    if (f->agent.kind != ABSENT && f->agent.kind != NUL && f->agent.kind != STR) return 0;
    if (f->parent.kind != ABSENT && f->parent.kind != NUL && f->parent.kind != STR) return 0;
    if (f->source.kind == STR_ESCAPED) return 0;
    if (kind == 1 && f->message_id.kind == STR_ESCAPED) return 0;
    int answered = 0;
    Py_ssize_t ncalls = 0, nanswers = 0;
    for (Py_ssize_t i = 0; i < c->nblocks; i++) {
        const Block *b = &c->blocks[i];
        if (b->type < 0) return 0;
        if (b->type == 2) {
            answered = 1;
            if (b->tool_use_id.kind == STR_ESCAPED) return 0;
            nanswers += b->tool_use_id.kind == STR;
        } else if (b->type == 1 && kind == 1) {
            if (b->id.kind == STR_ESCAPED) return 0;
            ncalls += b->id.kind == STR;
        }
    }
    int plain = absent_or(&f->meta, FALSE_) && absent_or(&f->quiet, NUL) &&
        absent_or(&f->hidden, NUL) && absent_or(&f->ran_by, NUL);

    PyObject *uuid = NULL, *parent = NULL, *message_id = NULL, *calls = NULL,
             *answers = NULL, *source = NULL, *writer = NULL, *stamp = NULL, *start_obj = NULL;
    int result = 0;
    if (!(uuid = text(&f->uuid))) goto done;
    if (f->parent.kind == ABSENT) { parent = undefined; Py_INCREF(parent); }
    else if (f->parent.kind == NUL) { parent = Py_None; Py_INCREF(parent); }
    else {
        Py_ssize_t n;
        const char *had = previous != Py_None ? PyUnicode_AsUTF8AndSize(previous, &n) : NULL;
        if (had && n == f->parent.n && memcmp(had, f->parent.s, n) == 0) {
            parent = previous;
            Py_INCREF(parent);
        } else {
            if (!had) PyErr_Clear();
            if (!(parent = text(&f->parent))) goto done;
        }
    }
    if (kind == 1 && f->message_id.kind == STR) {
        if (!(message_id = text(&f->message_id))) goto done;
    } else { message_id = Py_None; Py_INCREF(message_id); }
    if (!(calls = PyTuple_New(ncalls))) { result = -1; goto done; }
    if (answered && !(answers = PyTuple_New(nanswers))) { result = -1; goto done; }
    if (!answered) { answers = Py_None; Py_INCREF(answers); }
    Py_ssize_t at_call = 0, at_answer = 0;
    for (Py_ssize_t i = 0; i < c->nblocks; i++) {
        const Block *b = &c->blocks[i];
        PyObject *id;
        if (b->type == 2 && b->tool_use_id.kind == STR) {
            if (!(id = text(&b->tool_use_id))) goto done;
            PyTuple_SET_ITEM(answers, at_answer++, id);
        } else if (b->type == 1 && kind == 1 && b->id.kind == STR) {
            if (!(id = text(&b->id))) goto done;
            PyTuple_SET_ITEM(calls, at_call++, id);
        }
    }
    if (f->source.kind == STR) { if (!(source = text(&f->source))) goto done; }
    else { source = Py_None; Py_INCREF(source); }
    if (f->agent.kind == ABSENT) { writer = main_writer; Py_INCREF(writer); }
    else {
        PyObject *agent = f->agent.kind == NUL ? (Py_INCREF(Py_None), Py_None) : text(&f->agent);
        if (!agent) goto done;
        writer = Py_BuildValue("(ON)", Py_False, agent);
        if (!writer) { result = -1; goto done; }
    }
    if (!(start_obj = PyLong_FromSsize_t(start))) { result = -1; goto done; }
    if (answered) {
        if (f->stamp.kind == ABSENT) { stamp = undefined; Py_INCREF(stamp); }
        else if (f->stamp.kind == NUL) { stamp = Py_None; Py_INCREF(stamp); }
        else if (f->stamp.kind == STR) {
            if (!(stamp = text(&f->stamp))) { stamp = unkept; Py_INCREF(stamp); }
        } else { stamp = unkept; Py_INCREF(stamp); }
        *row = PyObject_CallFunctionObjArgs(pending_type, buffer, start_obj,
                                            plain ? Py_True : Py_False, Py_None, stamp, NULL);
    } else {
        *row = PyObject_CallFunctionObjArgs(pending_type, buffer, start_obj,
                                            plain ? Py_True : Py_False, NULL);
    }
    if (!*row) { result = -1; goto done; }
    *facts = PyTuple_Pack(9, uuid, kinds[kind], parent, kind == 2 ? Py_False : Py_True,
                          message_id, calls, answers, source, writer);
    if (!*facts) { Py_CLEAR(*row); result = -1; goto done; }
    *uuid_out = uuid;
    Py_INCREF(uuid);
    result = 1;
done:
    Py_XDECREF(uuid); Py_XDECREF(parent); Py_XDECREF(message_id); Py_XDECREF(calls);
    Py_XDECREF(answers); Py_XDECREF(source); Py_XDECREF(writer); Py_XDECREF(stamp);
    Py_XDECREF(start_obj);
    return result;
}

/* What one pass over the lines appends to and hands on. */
typedef struct {
    PyObject *buffer, *entries, *numbers, *facts, *refused, *previous, *view;
    Cursor c;
} Run;

/* One line, ``length`` bytes at ``start`` of the buffer: kept, or handed to ``refused``
 * (as ``line``, else a memoryview of the buffer made here: a refused line of a gigabyte
 * is never copied). 0, or -1 on a Python error. */
static int one_line(Run *run, PyObject *number, Py_ssize_t start, Py_ssize_t length,
                    PyObject *line, PyObject *start_obj) {
    Cursor *c = &run->c;
    int kept = 0;
    PyObject *row = NULL, *facts = NULL, *uuid = NULL;
    c->p = (const unsigned char *)PyBytes_AS_STRING(run->buffer) + start;
    c->end = c->p + length;
    c->nblocks = 0;
    if (length && *c->p == '{') {
        Fields f;
        memset(&f, 0, sizeof f);
        if (object(c, row_member, &f, 1) == 0) {
            skip_ws(c);
            if (c->p == c->end)
                kept = accept(c, &f, run->buffer, start, run->previous, &row, &facts, &uuid);
        }
    }
    if (kept < 0) return -1;
    if (kept) {
        int failed = PyList_Append(run->entries, row) < 0 ||
            PyList_Append(run->numbers, number) < 0 || PyList_Append(run->facts, facts) < 0;
        Py_DECREF(row);
        Py_DECREF(facts);
        Py_SETREF(run->previous, uuid);
        return failed ? -1 : 0;
    }
    PyObject *made_line = NULL, *made_start = NULL, *next;
    if (!line) {
        if (!run->view && !(run->view = PyMemoryView_FromObject(run->buffer))) return -1;
        PyObject *from = PyLong_FromSsize_t(start), *to = PyLong_FromSsize_t(start + length);
        PyObject *span = from && to ? PySlice_New(from, to, NULL) : NULL;
        if (span) made_line = PyObject_GetItem(run->view, span);
        Py_XDECREF(span);
        Py_XDECREF(to);
        made_start = from;
        if (!made_line) { Py_XDECREF(made_start); return -1; }
        line = made_line;
        start_obj = made_start;
    }
    next = PyObject_CallFunctionObjArgs(run->refused, number, line, start_obj, run->buffer,
                                        run->previous, NULL);
    Py_XDECREF(made_line);
    Py_XDECREF(made_start);
    if (!next) return -1;
    Py_SETREF(run->previous, next);
    return 0;
}

static int ready(void) {
    if (pending_type) return 0;
    PyErr_SetString(PyExc_RuntimeError, "_glance.configure was not called");
    return -1;
}

static PyObject *finish(Run *run, int failed) {
    PyMem_Free(run->c.blocks);
    Py_XDECREF(run->previous);
    Py_XDECREF(run->view);
    if (failed || PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* glance_lines(numbered, buffer, entries, numbers, facts, refused): for each
 * ``(number, line, start)`` of ``numbered`` (``line`` a bytes-like view of ``buffer`` at
 * ``start``), an accepted line's ``Pending`` row, number and facts appended, a refused
 * one handed to ``refused(number, line, start, buffer, previous)``, which returns the
 * uuid the next line's parent is compared with. */
static PyObject *glance_lines(PyObject *self, PyObject *args) {
    PyObject *numbered, *item;
    Run run = {0};
    (void)self;
    if (!PyArg_ParseTuple(args, "OSO!O!O!O", &numbered, &run.buffer, &PyList_Type,
                          &run.entries, &PyList_Type, &run.numbers, &PyList_Type, &run.facts,
                          &run.refused) || ready() < 0)
        return NULL;
    Py_ssize_t size = PyBytes_GET_SIZE(run.buffer);
    PyObject *iterator = PyObject_GetIter(numbered);
    if (!iterator) return NULL;
    run.previous = Py_NewRef(Py_None);
    int failed = 0;
    while (!failed && (item = PyIter_Next(iterator))) {
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 3) {
            PyErr_SetString(PyExc_TypeError, "numbered lines are (number, line, start)");
            failed = 1;
        } else {
            PyObject *line = PyTuple_GET_ITEM(item, 1), *start_obj = PyTuple_GET_ITEM(item, 2);
            Py_ssize_t start = PyLong_AsSsize_t(start_obj), length = PyObject_Length(line);
            if (start < 0 || length < 0 || start > size || length > size - start) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "a line outside the buffer");
                failed = 1;
            } else {
                failed = one_line(&run, PyTuple_GET_ITEM(item, 0), start, length, line,
                                  start_obj) < 0;
            }
        }
        Py_DECREF(item);
    }
    Py_DECREF(iterator);
    return finish(&run, failed);
}

/* glance_spans(buffer, offset, first, starts, entries, numbers, facts, refused): the
 * lines of ``buffer`` in order, numbered from ``first``: those starting at ``starts``
 * (ascending offsets the read stage found), or with None every line from ``offset``;
 * each ends at its LF or the buffer's end. As ``glance_lines``, without a view and a
 * tuple made for every line. */
static PyObject *glance_spans(PyObject *self, PyObject *args) {
    PyObject *starts;
    Py_ssize_t offset, first;
    Run run = {0};
    (void)self;
    if (!PyArg_ParseTuple(args, "SnnOO!O!O!O", &run.buffer, &offset, &first, &starts,
                          &PyList_Type, &run.entries, &PyList_Type, &run.numbers,
                          &PyList_Type, &run.facts, &run.refused) || ready() < 0)
        return NULL;
    if (starts != Py_None && !PyList_Check(starts)) {
        PyErr_SetString(PyExc_TypeError, "starts is a list of offsets or None");
        return NULL;
    }
    const char *base = PyBytes_AS_STRING(run.buffer);
    Py_ssize_t size = PyBytes_GET_SIZE(run.buffer), count = 0, start = offset;
    if (offset < 0 || offset > size) {
        PyErr_SetString(PyExc_ValueError, "a line outside the buffer");
        return NULL;
    }
    run.previous = Py_NewRef(Py_None);
    int failed = 0;
    for (Py_ssize_t at = 0; !failed; at++) {
        if (starts == Py_None) {
            if (start >= size) break;
        } else {
            if (at >= PyList_GET_SIZE(starts)) break;
            start = PyLong_AsSsize_t(PyList_GET_ITEM(starts, at));
            if (start < 0 || start > size) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "a line outside the buffer");
                failed = 1;
                break;
            }
        }
        Py_ssize_t end = -1;
        if (starts != Py_None && at + 1 < PyList_GET_SIZE(starts)) {
            end = PyLong_AsSsize_t(PyList_GET_ITEM(starts, at + 1)) - 1;  /* its LF */
            if (end < start || end >= size || base[end] != '\n') {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "starts that are not lines' starts");
                failed = 1;
                break;
            }
        } else {
            const char *newline = memchr(base + start, '\n', (size_t)(size - start));
            end = newline ? newline - base : size;
        }
        PyObject *number = PyLong_FromSsize_t(first + count++);
        failed = !number || one_line(&run, number, start, end - start, NULL, NULL) < 0;
        Py_XDECREF(number);
        start = end + 1;
    }
    return finish(&run, failed);
}

/* configure(pending, undefined, unkept, main_writer, kinds): the parser's objects. */
static PyObject *configure(PyObject *self, PyObject *args) {
    PyObject *pending, *undef, *unk, *writer, *kind_map;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOOO!", &pending, &undef, &unk, &writer, &PyDict_Type,
                          &kind_map))
        return NULL;
    PyObject *found[4];
    for (int k = 0; k < 4; k++) {
        found[k] = PyDict_GetItemString(kind_map, kind_names[k]);
        if (!found[k]) {
            PyErr_Format(PyExc_KeyError, "kinds has no %s", kind_names[k]);
            return NULL;
        }
    }
    Py_XSETREF(pending_type, Py_NewRef(pending));
    Py_XSETREF(undefined, Py_NewRef(undef));
    Py_XSETREF(unkept, Py_NewRef(unk));
    Py_XSETREF(main_writer, Py_NewRef(writer));
    for (int k = 0; k < 4; k++) Py_XSETREF(kinds[k], Py_NewRef(found[k]));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"glance_lines", glance_lines, METH_VARARGS,
     "Glance at each numbered line: plain rows kept, the rest handed to ``refused``."},
    {"glance_spans", glance_spans, METH_VARARGS,
     "glance_lines over the buffer's lines in order, from their starts."},
    {"configure", configure, METH_VARARGS, "The parser's objects this module builds with."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_glance",
    "The SDK parser's glance at plain rows, in C (parse._glance_lines is the algorithm).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__glance(void) { return PyModule_Create(&module); }
