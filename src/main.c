/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "common.h"
int main(void) { return 0; }
