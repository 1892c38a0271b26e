/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rsh-mmio-rtt: the round trip of one 8-byte MMIO access to a PCI
 * function's BAR0, through an mmap of its sysfs resource0 (the direct
 * mapping; run it on an unbound or uio-bound function). In a guest whose
 * rshim function is served by rshim-sim-pci, every access traps to QEMU
 * and crosses the proxy socket: this is the trap-and-emulate cost the
 * cost model is then given (doc/benchmarks.md).
 *
 *   rsh-mmio-rtt BDF RD_OFF WR_OFF [N [FIFO_OFF RESET_OFF BOOTCTL_OFF]]
 *
 * Reads RD_OFF and writes WR_OFF (a plain scratch register) N times each
 * (default 20000) in 10 batches; prints the median batch's ns per access:
 * "read_ns=... write_ns=...". With the last three offsets it also times
 * writes to the boot FIFO data register while the boot ROM reads it
 * (BOOT_CONTROL 0, then the reset key, hardware-notes §3.2), the access a
 * boot push makes and pays the emulated consumer in: "fifo_write_ns=...";
 * BOOT_CONTROL is set back to 1 (eMMC) after.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RSH_RTT_BATCHES 10

/* Monotonic ns. */
static double
rsh_rtt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* qsort order of doubles. */
static int
rsh_rtt_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median ns per access of n accesses, in batches. */
static double
rsh_rtt_measure(volatile uint64_t *reg, int write, unsigned int n)
{
	double t[RSH_RTT_BATCHES], t0;
	unsigned int b, i, per = n / RSH_RTT_BATCHES;
	uint64_t sink = 0;

	for (b = 0; b < RSH_RTT_BATCHES; b++) {
		t0 = rsh_rtt_now();
		for (i = 0; i < per; i++) {
			if (write)
				*reg = i;
			else
				sink += *reg;
		}
		t[b] = (rsh_rtt_now() - t0) / per;
	}
	(void)sink;
	qsort(t, RSH_RTT_BATCHES, sizeof(t[0]), rsh_rtt_cmp);
	return t[RSH_RTT_BATCHES / 2];
}

/* Boot FIFO writes while the boot ROM consumes them. */
static void
rsh_rtt_fifo(uint8_t *bar, unsigned long len, char **offs, unsigned int n)
{
	unsigned long fifo = strtoul(offs[0], NULL, 0);
	unsigned long rst = strtoul(offs[1], NULL, 0);
	unsigned long ctl = strtoul(offs[2], NULL, 0);
	struct timespec wait = { 0, 100000000 };

	if (fifo + 8 > len || rst + 8 > len || ctl + 8 > len)
		return;
	*(volatile uint64_t *)(bar + ctl) = 0;          /* boot from the FIFO */
	*(volatile uint64_t *)(bar + rst) = 0xCA710001; /* reset key, §3.2 */
	nanosleep(&wait, NULL);
	printf(" fifo_write_ns=%.0f",
	       rsh_rtt_measure((volatile uint64_t *)(bar + fifo), 1, n));
	*(volatile uint64_t *)(bar + ctl) = 1;          /* eMMC again */
}

int
main(int argc, char **argv)
{
	unsigned long rd, wr;
	unsigned int n;
	char path[256];
	uint8_t *bar;
	struct stat st;
	off_t len;
	int fd;

	if (argc < 4) {
		fprintf(stderr, "usage: rsh-mmio-rtt BDF RD_OFF WR_OFF [N]\n");
		return 2;
	}
	rd = strtoul(argv[2], NULL, 0);
	wr = strtoul(argv[3], NULL, 0);
	n = argc > 4 ? (unsigned int)strtoul(argv[4], NULL, 0) : 20000;
	/* memory decoding on, as the direct mapping mode does (§2.3) */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/enable", argv[1]);
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) != 1)
			perror(path);
		close(fd);
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", argv[1]);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	len = fstat(fd, &st) == 0 ? st.st_size : 0;
	bar = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (bar == MAP_FAILED || rd + 8 > (unsigned long)len || wr + 8 > (unsigned long)len) {
		fprintf(stderr, "rsh-mmio-rtt: cannot map %s or offsets outside it\n", path);
		return 1;
	}
	printf("read_ns=%.0f write_ns=%.0f",
	       rsh_rtt_measure((volatile uint64_t *)(bar + rd), 0, n),
	       rsh_rtt_measure((volatile uint64_t *)(bar + wr), 1, n));
	if (argc > 7)
		rsh_rtt_fifo(bar, (unsigned long)len, argv + 5, n);
	printf("\n");
	munmap(bar, (size_t)len);
	close(fd);
	return 0;
}
