#include <no/such/header.h>
int add(int a, int b) { return a + b; }
