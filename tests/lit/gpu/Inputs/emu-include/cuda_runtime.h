// What CUDA's runtime header gives a kernel, under the CPU model: emu.h,
// which %emucc includes first, has it all.
#pragma once
