// SPDX-License-Identifier: MIT
//
// main() of every operator program; kept in its own object so that test
// programs can link libascendsim with a main of their own.
namespace ascendsim {
int harness_main(int argc, char **argv);
}

int main(int argc, char **argv)
{
	return ascendsim::harness_main(argc, argv);
}
