/* SPDX-License-Identifier: GPL-2.0 */
/* linux/types.h for the unit test: the system one plus the kernel's short types */
#include "sgshim.h"
