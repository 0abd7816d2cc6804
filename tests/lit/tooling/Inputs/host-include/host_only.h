// Only the (fake) host compiler provides this header.
#pragma once
#define FROM_HOST_COMPILER 1
