/* SPDX-License-Identifier: GPL-2.0 */
/*
 * law.h - put before kmod/control.c when the simulator builds it (Makefile,
 * sim/variant): the name of the law that object is, "law" or a variant of
 * sim/variants, which main.c checks a cell's law= against.
 */
extern const char sim_law[];
const char sim_law[] = SIM_LAW;
