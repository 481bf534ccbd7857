# clustersim-calibrate's stages that need no MPI (derive, write, report, saved measurements):
# one list for the library tools/mpi/CMakeLists.txt builds (clustersim_calibrate_model) and for
# the fuzz harness of saved measurements (tests/fuzz/CMakeLists.txt), whose build has no MPI.
set(CLUSTERSIM_CALIBRATE_MODEL_SOURCES text.cpp options.cpp derive.cpp write.cpp report.cpp
    measured_json.cpp coll_curves.cpp)
list(TRANSFORM CLUSTERSIM_CALIBRATE_MODEL_SOURCES PREPEND ${PROJECT_SOURCE_DIR}/tools/mpi/calibrate/)
