// SPDX-License-Identifier: GPL-2.0
/*
 * A smoke test that scripts/bench/uml-init runs before the command: the
 * uml kernel must keep a process's FP registers across signal handlers
 * and page faults that meet interrupts. On a host whose XSAVE area is
 * larger than UML expects (AMX), either could kill the process ("ptrace
 * set fp regs failed", "put_fp_registers returned -22") or restore
 * garbage, and the benchmarks would die halfway or lie. Where the CPU
 * has AVX-512, ZMM16 must survive too: a signal frame that kept only
 * struct _xstate lost it, and glibc's EVEX string functions with it.
 * Exit status 0 when every check passed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#define ROUNDS 2000
#define CHUNK (256 << 10)
#define FAULT_BYTES (128L << 20)

static volatile sig_atomic_t handled;	/* SIGUSR1s: the rounds' own */
static volatile double sink;
static int have_avx512;
static char *scratch;

/* Sets every bit of ZMM16, the upper half that struct _xstate lacks. */
static __attribute__((target("avx512f"))) void clobber_zmm16(void)
{
	__asm__ volatile("vpternlogd $0xff, %%zmm16, %%zmm16, %%zmm16"
			 ::: "xmm16");
}

/* Holds @x in XMM16 across a signal; returns what came back. */
static __attribute__((target("avx512f"))) unsigned long
zmm16_across_signal(unsigned long x)
{
	unsigned long y;

	__asm__ volatile("vmovq %1, %%xmm16\n\t"
			 "mov $39, %%eax\n\t"	/* getpid */
			 "syscall\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov $10, %%esi\n\t"	/* SIGUSR1 */
			 "mov $62, %%eax\n\t"	/* kill */
			 "syscall\n\t"
			 "vmovq %%xmm16, %0"
			 : "=r"(y)
			 : "r"(x)
			 : "rax", "rcx", "rdi", "rsi", "r11", "xmm16", "memory");
	return y;
}

/*
 * Clobbers x87 and SSE state and writes a buffer, then returns. The
 * buffer is main()'s, allocated before the timer starts: the timer's
 * signal can come while main() is inside malloc(), which is not
 * reentrant (a handler that called it showed up now and then as
 * "malloc assertion failure in sysmalloc", a bug of this check's, not
 * the kernel's). main() faults pages in under the timer itself.
 */
static void handler(int sig)
{
	double x = sig;
	char *p;
	int i;

	for (i = 0; i < 64; i++)
		x = x * 1.000001 + 0.25;
	sink = x;
	__asm__ volatile("pcmpeqd %%xmm0, %%xmm0\n\t"
			 "pcmpeqd %%xmm7, %%xmm7\n\t"
			 "pcmpeqd %%xmm15, %%xmm15" ::: "xmm0", "xmm7", "xmm15");
	if (have_avx512)
		clobber_zmm16();
	p = scratch;
	memset(p, sig, CHUNK);
	if (sig == SIGUSR1)
		handled++;
}

int main(void)
{
	struct itimerval tick = { { 0, 500 }, { 0, 500 } }, off = { 0 };
	struct sigaction sa;
	long i, lost = 0;
	volatile char *mem;

	have_avx512 = __builtin_cpu_supports("avx512f");
	scratch = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (scratch == MAP_FAILED) {
		perror("uml-check");
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sigfillset(&sa.sa_mask);	/* one handler at a time */
	sa.sa_handler = handler;
	if (sigaction(SIGUSR1, &sa, NULL) || sigaction(SIGALRM, &sa, NULL) ||
	    setitimer(ITIMER_REAL, &tick, NULL)) {
		perror("uml-check");
		return 1;
	}
	for (i = 0; i < ROUNDS; i++) {
		double a = 1.5 + i, b;
		unsigned long x = 0x0123456789abcdefUL ^ i, y;
		sig_atomic_t before = handled;

		/* xmm8 and the x87 stack hold values across a signal. */
		__asm__ volatile("movq %2, %%xmm8\n\t"
				 "fldl %3\n\t"
				 "mov $39, %%eax\n\t"	/* getpid */
				 "syscall\n\t"
				 "mov %%eax, %%edi\n\t"
				 "mov $10, %%esi\n\t"	/* SIGUSR1 */
				 "mov $62, %%eax\n\t"	/* kill: the handler runs on its return */
				 "syscall\n\t"
				 "fstpl %1\n\t"
				 "movq %%xmm8, %0"
				 : "=r"(y), "=m"(b)
				 : "r"(x), "m"(a)
				 : "rax", "rcx", "rdi", "rsi", "r11", "xmm8", "memory");
		/* The handler must have run in between, or nothing was tested. */
		if (x != y || a != b || handled != before + 1)
			lost++;
		else if (have_avx512 && (zmm16_across_signal(x) != x ||
					 handled != before + 2))
			lost++;
	}
	/*
	 * Page faults, one store to each page, while the timer keeps
	 * interrupting: what killed every larger program (sort, python3,
	 * bloomctl) with "put_fp_registers returned -22".
	 */
	mem = malloc(FAULT_BYTES);
	if (!mem) {
		perror("uml-check");
		return 1;
	}
	for (i = 0; i < FAULT_BYTES; i += 4096)
		mem[i] = i;
	free((void *)mem);
	setitimer(ITIMER_REAL, &off, NULL);
	if (lost || handled != ROUNDS * (1 + have_avx512)) {
		fprintf(stderr, "uml-check: %ld of %d rounds lost an FP register or saw no signal, %d SIGUSR1 handled\n",
			lost, ROUNDS, (int)handled);
		return 1;
	}
	return 0;
}
