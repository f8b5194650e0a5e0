// kernelpad-cli: compile, run and inspect KernelPad projects without a window.
int main() { return 0; }
