# cython: language_level=3, boundscheck=False, wraparound=False
"""Where the records of delimited text end, quotes considered, in one pass in C.

:func:`csv_records` follows the quoting rules of pandas' C tokenizer (the
parser :func:`evofeat.datasets.readers.read_table` and
:class:`evofeat.streams.CsvStream` use): a ``"`` opens a quoted field only at
the start of a field; inside one, ``""`` is a quote and a newline is part of
the field; a ``"`` anywhere else is an ordinary character. So a block of text
can be cut where a record ends, never inside a quoted field, and an unclosed
quote is found where it opened, before the parser reads to the end of the file.
"""

cdef enum:
    FIELD_START = 0
    IN_FIELD = 1
    IN_QUOTED = 2
    QUOTE_IN_QUOTED = 3


def csv_records(bytes data, int sep, bint whitespace=False):
    """``(end, opened)``: the end of the last whole record of ``data``, and where its unclosed quote opened.

    ``end`` is the offset just after the last newline that ends a record
    (0 when none does); ``opened`` is the offset of the ``"`` that opens a
    quoted field still open at the end of ``data``, or -1. ``sep`` is the
    separator's byte; ``whitespace`` splits on runs of spaces and tabs
    instead. Line ends must be ``\\n`` (see
    :func:`evofeat.datasets.textio.universal_newlines`).

    >>> csv_records(b'a,"x\\ny",1\\n2,"open\\n3,4\\n', ord(","))
    (10, 12)
    >>> csv_records(b'1,2"3,4\\n5,6\\n', ord(","))  # a quote inside a field is a character
    (12, -1)
    """
    cdef const unsigned char* s = data
    cdef Py_ssize_t n = len(data), i, end = 0, opened = -1
    cdef unsigned char c, q = 34
    cdef int state = FIELD_START
    cdef bint is_sep
    with nogil:
        for i in range(n):
            c = s[i]
            if c == 10:
                if state != IN_QUOTED:
                    end = i + 1
                    state = FIELD_START
                continue
            is_sep = (c == 32 or c == 9) if whitespace else c == sep
            if state == FIELD_START:
                if c == q:
                    state = IN_QUOTED
                    opened = i
                elif not is_sep:
                    state = IN_FIELD
            elif state == IN_FIELD:
                if is_sep:
                    state = FIELD_START
            elif state == IN_QUOTED:
                if c == q:
                    state = QUOTE_IN_QUOTED
            else:  # a quote inside a quoted field: it closes it, or "" is a quote
                if c == q:
                    state = IN_QUOTED
                elif is_sep:
                    state = FIELD_START
                else:
                    state = IN_FIELD
    return end, (opened if state == IN_QUOTED else -1)
