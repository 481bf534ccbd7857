# clustersim-calibrate's stages that need no MPI (derive, write, report, saved measurements):
# the sources of the library clustersim_calibrate_model, which tools/CMakeLists.txt defines with or
# without MPI (the program, tests/test_calibrate_*.cpp and tests/fuzz's fuzz_calibrate_json link it).
set(CLUSTERSIM_CALIBRATE_MODEL_SOURCES text.cpp options.cpp derive.cpp write.cpp report.cpp
    measured_json.cpp coll_curves.cpp)
list(TRANSFORM CLUSTERSIM_CALIBRATE_MODEL_SOURCES PREPEND ${PROJECT_SOURCE_DIR}/tools/mpi/calibrate/)
