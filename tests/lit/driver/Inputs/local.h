#define LOCAL_VALUE 2.0f
