/*
 * gen.h - the generic-dispatch test (tests/generic.cmake): the spec's type
 * tables, written from OpenSHMEM 1.5 independently of shmem.h's own lists,
 * and the record the profiling interceptors (icpt.c) leave for each call.
 *
 * Each generic gets its own translation unit (calls.c, included by a
 * wrapper tests/generic.cmake writes), so a pair that does not compile is
 * reported by the compiler next to every other failing pair, not instead of
 * them; each call is then checked at run time, and every mismatch printed
 * before the test fails.
 */
#ifndef GEN_H
#define GEN_H

#include <stddef.h>
#include <stdint.h>

#include <shmem.h>

/* X(TYPE, SPELLING) per table; the spelling is what a message prints. */
#define SPEC_INT_FIXED(X)                                                      \
    X(int8_t, "int8_t") X(int16_t, "int16_t") X(int32_t, "int32_t")           \
    X(int64_t, "int64_t") X(uint8_t, "uint8_t") X(uint16_t, "uint16_t")       \
    X(uint32_t, "uint32_t") X(uint64_t, "uint64_t")
/* Table 5 (RMA, also put_signal and the collectives' types). */
#define SPEC_RMA(X)                                                            \
    X(float, "float") X(double, "double") X(long double, "long double")       \
    X(char, "char") X(signed char, "signed char") X(short, "short")           \
    X(int, "int") X(long, "long") X(long long, "long long")                   \
    X(unsigned char, "unsigned char") X(unsigned short, "unsigned short")     \
    X(unsigned int, "unsigned int") X(unsigned long, "unsigned long")         \
    X(unsigned long long, "unsigned long long") SPEC_INT_FIXED(X)             \
    X(size_t, "size_t") X(ptrdiff_t, "ptrdiff_t")
/* Table 6 (standard AMO types). */
#define SPEC_AMO_STD(X)                                                        \
    X(int, "int") X(long, "long") X(long long, "long long")                   \
    X(unsigned int, "unsigned int") X(unsigned long, "unsigned long")         \
    X(unsigned long long, "unsigned long long") X(int32_t, "int32_t")         \
    X(int64_t, "int64_t") X(uint32_t, "uint32_t") X(uint64_t, "uint64_t")     \
    X(size_t, "size_t") X(ptrdiff_t, "ptrdiff_t")
/* Table 7 (extended AMO types). */
#define SPEC_AMO_EXT(X) X(float, "float") X(double, "double") SPEC_AMO_STD(X)
/* Table 8 (bitwise AMO types). */
#define SPEC_AMO_BIT(X)                                                        \
    X(unsigned int, "unsigned int") X(unsigned long, "unsigned long")         \
    X(unsigned long long, "unsigned long long") X(int32_t, "int32_t")         \
    X(int64_t, "int64_t") X(uint32_t, "uint32_t") X(uint64_t, "uint64_t")
/* Table 9/10 (point-to-point synchronization types). */
#define SPEC_P2P(X)                                                            \
    X(short, "short") X(int, "int") X(long, "long") X(long long, "long long") \
    X(unsigned short, "unsigned short") X(unsigned int, "unsigned int")       \
    X(unsigned long, "unsigned long") X(unsigned long long, "unsigned long long") \
    X(int32_t, "int32_t") X(int64_t, "int64_t") X(uint32_t, "uint32_t")       \
    X(uint64_t, "uint64_t") X(size_t, "size_t") X(ptrdiff_t, "ptrdiff_t")
/* Reduction types: bitwise (and, or, xor), ordered (max, min), arithmetic
 * (sum, prod: the ordered ones and complex). */
#define SPEC_RED_BIT(X)                                                        \
    X(unsigned char, "unsigned char") X(unsigned short, "unsigned short")     \
    X(unsigned int, "unsigned int") X(unsigned long, "unsigned long")         \
    X(unsigned long long, "unsigned long long") SPEC_INT_FIXED(X)             \
    X(size_t, "size_t")
#define SPEC_RED_MINMAX(X)                                                     \
    X(char, "char") X(signed char, "signed char") X(short, "short")           \
    X(int, "int") X(long, "long") X(long long, "long long")                   \
    X(ptrdiff_t, "ptrdiff_t") X(unsigned char, "unsigned char")               \
    X(unsigned short, "unsigned short") X(unsigned int, "unsigned int")       \
    X(unsigned long, "unsigned long") X(unsigned long long, "unsigned long long") \
    SPEC_INT_FIXED(X) X(size_t, "size_t") X(float, "float")                  \
    X(double, "double") X(long double, "long double")
#ifdef __cplusplus
#define SPEC_RED_ARITH(X)                                                      \
    SPEC_RED_MINMAX(X) X(std::complex<double>, "std::complex<double>")        \
    X(std::complex<float>, "std::complex<float>")
#else
#define SPEC_RED_ARITH(X)                                                      \
    SPEC_RED_MINMAX(X) X(double _Complex, "double _Complex")                  \
    X(float _Complex, "float _Complex")
#endif

/* What a type is, independently of shmem.h: 'h' plain char, 's' signed
 * integer, 'u' unsigned integer, 'f' real floating, 'c' complex. A typedef
 * lands on its standard type, so int32_t is 's' wherever it is. */
#ifdef __cplusplus
/* The same by overloads on pointers (no conversion between them). */
#define GEN_KIND_CXX(T, K)                                                     \
    constexpr char gen_kind(T *) { return K; }
GEN_KIND_CXX(char, 'h') GEN_KIND_CXX(signed char, 's') GEN_KIND_CXX(short, 's')
GEN_KIND_CXX(int, 's') GEN_KIND_CXX(long, 's') GEN_KIND_CXX(long long, 's')
GEN_KIND_CXX(unsigned char, 'u') GEN_KIND_CXX(unsigned short, 'u')
GEN_KIND_CXX(unsigned int, 'u') GEN_KIND_CXX(unsigned long, 'u')
GEN_KIND_CXX(unsigned long long, 'u') GEN_KIND_CXX(float, 'f') GEN_KIND_CXX(double, 'f')
GEN_KIND_CXX(long double, 'f') GEN_KIND_CXX(std::complex<double>, 'c')
GEN_KIND_CXX(std::complex<float>, 'c')
#define GEN_KIND(T) gen_kind(static_cast<T *>(nullptr))
extern "C" {
#else
#define GEN_KIND(T)                                                            \
    _Generic((T)0, char : 'h', signed char : 's', short : 's', int : 's',      \
             long : 's', long long : 's', unsigned char : 'u',                 \
             unsigned short : 'u', unsigned int : 'u', unsigned long : 'u',    \
             unsigned long long : 'u', float : 'f', double : 'f',              \
             long double : 'f', double _Complex : 'c', float _Complex : 'c')
#endif

/* Symmetric (global) buffers every call works on; zero before each call,
 * so every wait and test is satisfied at once. */
typedef union {
    long double ld[2];
    unsigned char b[64];
} gen_buf_t;
extern gen_buf_t gen_dest[4], gen_src[4], gen_fetch[4];
extern uint64_t gen_sig;
extern size_t gen_indices[4];
#define D(T) ((T *)(void *)gen_dest)
#define S(T) ((T *)(void *)gen_src)
#define F(T) ((T *)(void *)gen_fetch)
#define V(T) ((T)0)

/* Interceptors call gen_hit; each checked call is gen_reset, the call,
 * gen_check (which prints a FAIL line per mismatch and counts it). */
void gen_hit(const char *routine, size_t size, char kind);
void gen_reset(void);
void gen_check(const char *generic, int ctx, const char *type, size_t size, char kind);
extern int gen_pairs, gen_failures;

#ifdef __cplusplus
}
#endif

#endif
