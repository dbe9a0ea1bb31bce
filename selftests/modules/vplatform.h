/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vplatform.h - the emulated server power platform shared by vfreq.ko and vidle.ko.
 *
 * One table of P-states and one of C-states, so that the DVFS driver (vfreq),
 * the cpuidle driver (vidle) and the modeled-energy meter (in vfreq) agree on
 * them.  The figures and their sources are in Documentation/emulated-platform.rst.
 */
#ifndef VPLATFORM_H
#define VPLATFORM_H

#include <linux/types.h>

/*
 * P-states: 1.0 - 3.0 GHz in 400 MHz steps, roughly the span of a Xeon-class
 * server core from its lowest P-state to a little above its base frequency
 * (e.g. Xeon Gold 6148, Skylake-SP: 20 cores, 2.4 GHz base, 150 W TDP).
 * Turbo is not modeled.  vidle.ko reads only the C-states below.
 */
#define VP_NR_FREQS	6
static const unsigned int vp_freq_khz[VP_NR_FREQS] __maybe_unused = {
	1000000, 1400000, 1800000, 2200000, 2600000, 3000000,
};
#define VP_FMAX_KHZ	3000000U

/*
 * Default core voltage per P-state (mV), index-matched to vp_freq_khz.
 * Assumed: the usual shape of a 14 nm server part's V/f curve (about 0.7 V at
 * the lowest P-state, about 1.05 V at the highest).  Not measured.
 */
#define VP_VOLT_MV_DEFAULT	{ 700, 750, 800, 870, 950, 1050 }

/*
 * C-states: exit latency and target residency of Skylake-SP (Xeon Scalable),
 * from Linux's drivers/idle/intel_idle.c, skx_cstates[] (6.1).  The idle power
 * per core is an assumption (Intel does not publish it per C-state): C1 keeps
 * the core's voltage (clock gated, leakage stays), so its power is given at
 * V(fmax) and scales with (V(f)/Vmax)^2 like the running core's leakage; C1E
 * drops to the lowest voltage (1000 mW * (0.70/1.05)^2 = 444 mW, rounded
 * down to 440); C6 power-gates the core (what remains: the power gate's own
 * leakage and the retention of the core's state, assumed 50 mW).
 */
#define VP_NR_CSTATES	3
struct vp_cstate {
	const char *name;
	const char *desc;
	unsigned int exit_us;		/* exit latency, us */
	unsigned int residency_us;	/* target residency, us */
	unsigned int power_mw;		/* default modeled idle power per core, mW */
	bool volt_scaled;		/* power_mw is at V(fmax), times (V(f)/Vmax)^2 */
};

static const struct vp_cstate vp_cstates[VP_NR_CSTATES] = {
	{ "C1",  "emulated C1 (sti;hlt + 2 us)",   2,   2,  1000, true },
	{ "C1E", "emulated C1E (sti;hlt + 10 us)", 10,  20,  440,  false },
	{ "C6",  "emulated C6 (sti;hlt + 133 us)", 133, 600, 50,   false },
};

/* the cpuidle driver's name: the meter maps cpu_idle indexes only for it */
#define VP_IDLE_DRIVER	"vidle"
/* the meter's state for a CPU that is not in a C-state (running, at some P-state) */
#define VP_C0		(-1)

#endif /* VPLATFORM_H */
