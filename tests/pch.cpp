// Empty: the translation unit that compiles the test programs' precompiled header
// (tests/CMakeLists.txt, clustersim_test_pch).
