// The DUMPI decoder: one rank's binary trace (NAME-NNNN.bin) read into its calls (DumpiCall),
// from the format's published layout (sst-dumpi's dumpi/common/io.c, iodefs.h and
// dumpiio.c were read to learn it; no DUMPI code is used). Semantics: traces/README.md,
// "DUMPI". The reader (dumpi_reader.cpp) maps the calls to records.
//
// File layout (all integers big-endian):
//   0                 u64 magic 0xffaadd44554d5049
//   body (index)      u32 cpu second offset, u32 wall second offset, then records until
//                     the label END_OF_STREAM
//   record            u16 function label, u8 config mask, [u16 thread if mask & 0x40],
//                     [cpu start/stop: (u16 s + offset, u32 ns) x 2 if mask & 0x04],
//                     [wall start/stop likewise if mask & 0x08], [perf counters if mask
//                     & 0x80: u8 n, n x (u64 in, u64 out)], then the call's arguments
//   header (index)    u8 x 3 version, u64 start time, string host, string user, mesh
//   datatype sizes    u32 n, n x u32 (by DUMPI datatype id)
//   index (last 64 B) u64 magic, sizelbl, addrlbl, perflbl, header, body, footer, keyval
#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "simulator/error.hpp"
#include "traces/dumpi.hpp"
#include "traces/reader.hpp"

namespace clustersim::traces {

bool DumpiCall::has(const std::string& a) const {
    for (const auto& [n, v] : args)
        if (n == a) return true;
    return false;
}
std::int64_t DumpiCall::arg(const std::string& a) const {
    for (const auto& [n, v] : args)
        if (n == a) return v;
    throw std::out_of_range(name + ": no argument " + a);
}
const std::vector<std::int64_t>* DumpiCall::array(const std::string& a) const {
    for (const auto& [n, v] : arrays)
        if (n == a) return &v;
    return nullptr;
}

namespace {

constexpr std::uint64_t kDumpiMagic = 0xffaadd44554d5049ULL;
constexpr std::uint16_t kEndOfStream = 293;  // DUMPI_END_OF_STREAM
constexpr std::uint16_t kAllFunctions = 290;

// DUMPI's records: function label (its position in sst-dumpi's dumpi/common/funclabels.h)
// -> the MPI function and its argument layout, as sst-dumpi's dumpiio.c reads them. Tokens
// "T:name" in order; T = i int32 (ints, ranks, tags), r request (u32), l int64, s status
// or statuses (when the record's mask says statuses are stored: u32 n, then per status
// bytes, source, u8 cancelled, u8 error and, from 0.6.3, the tag), d datatype, c comm,
// g group, f file, I info, h any other handle (u16 each), o op, m file mode, w whence, b any
// other enum (u8 each), A int32 array (u32 n + n values), D handle array (u32 n + n u16), B
// byte array (u32 n + n u8), M array of int32 arrays, S char array (u32 n + n bytes), W
// array of char arrays, X array of arrays of char arrays, V argv (argc char arrays; before
// 0.6.2 argc is written twice), v argv without that repetition, P an int32 array from 0.6.9
// on (one int32 before), Q the same from 0.6.8 on. A leading '?' reads the token only when
// the call's commrank (oldcommrank) equals its root. Pcontrol (128) is never written.
struct Layout {
    const char* name;
    const char* args;
};
const std::map<std::uint16_t, Layout>& layouts() {
    static const std::map<std::uint16_t, Layout> m = {
        {0, {"MPI_Send", "i:count d:datatype i:dest i:tag c:comm"}},
        {1, {"MPI_Recv", "i:count d:datatype i:source i:tag c:comm s:status"}},
        {2, {"MPI_Get_count", "s:status d:datatype i:count"}},
        {3, {"MPI_Bsend", "i:count d:datatype i:dest i:tag c:comm"}},
        {4, {"MPI_Ssend", "i:count d:datatype i:dest i:tag c:comm"}},
        {5, {"MPI_Rsend", "i:count d:datatype i:dest i:tag c:comm"}},
        {6, {"MPI_Buffer_attach", "i:size"}},
        {7, {"MPI_Buffer_detach", "i:size"}},
        {8, {"MPI_Isend", "i:count d:datatype i:dest i:tag c:comm r:request"}},
        {9, {"MPI_Ibsend", "i:count d:datatype i:dest i:tag c:comm r:request"}},
        {10, {"MPI_Issend", "i:count d:datatype i:dest i:tag c:comm r:request"}},
        {11, {"MPI_Irsend", "i:count d:datatype i:dest i:tag c:comm r:request"}},
        {12, {"MPI_Irecv", "i:count d:datatype i:source i:tag c:comm r:request"}},
        {13, {"MPI_Wait", "r:request s:status"}},
        {14, {"MPI_Test", "r:request i:flag s:status"}},
        {15, {"MPI_Request_free", "r:request"}},
        {16, {"MPI_Waitany", "i:count A:requests i:index s:status"}},
        {17, {"MPI_Testany", "i:count A:requests i:index i:flag s:status"}},
        {18, {"MPI_Waitall", "i:count A:requests s:statuses"}},
        {19, {"MPI_Testall", "i:count A:requests i:flag s:statuses"}},
        {20, {"MPI_Waitsome", "i:count A:requests i:outcount A:indices s:statuses"}},
        {21, {"MPI_Testsome", "i:count A:requests i:outcount A:indices s:statuses"}},
        {22, {"MPI_Iprobe", "i:source i:tag c:comm i:flag s:status"}},
        {23, {"MPI_Probe", "i:source i:tag c:comm s:status"}},
        {24, {"MPI_Cancel", "r:request"}},
        {25, {"MPI_Test_cancelled", "s:status i:cancelled"}},
        {26, {"MPI_Send_init", "i:count d:datatype i:dest i:tag c:comm r:request"}},
        {27, {"MPI_Bsend_init", "i:count d:datatype i:dest i:tag c:comm r:request"}},
        {28, {"MPI_Ssend_init", "i:count d:datatype i:dest i:tag c:comm r:request"}},
        {29, {"MPI_Rsend_init", "i:count d:datatype i:dest i:tag c:comm r:request"}},
        {30, {"MPI_Recv_init", "i:count d:datatype i:source i:tag c:comm r:request"}},
        {31, {"MPI_Start", "r:request"}},
        {32, {"MPI_Startall", "i:count A:requests"}},
        {33,
         {"MPI_Sendrecv",
          "i:sendcount d:sendtype i:dest i:sendtag i:recvcount d:recvtype i:source i:recvtag "
          "c:comm s:status"}},
        {34,
         {"MPI_Sendrecv_replace",
          "i:count d:datatype i:dest i:sendtag i:source i:recvtag c:comm s:status"}},
        {35, {"MPI_Type_contiguous", "i:count d:oldtype d:newtype"}},
        {36, {"MPI_Type_vector", "i:count i:blocklength i:stride d:oldtype d:newtype"}},
        {37, {"MPI_Type_hvector", "i:count i:blocklength i:stride d:oldtype d:newtype"}},
        {38, {"MPI_Type_indexed", "i:count A:lengths A:indices d:oldtype d:newtype"}},
        {39, {"MPI_Type_hindexed", "i:count A:lengths A:indices d:oldtype d:newtype"}},
        {40, {"MPI_Type_struct", "i:count A:lengths P:indices D:oldtypes d:newtype"}},
        {41, {"MPI_Address", "i:address"}},
        {42, {"MPI_Type_extent", "d:datatype i:extent"}},
        {43, {"MPI_Type_size", "d:datatype i:size"}},
        {44, {"MPI_Type_lb", "d:datatype i:lb"}},
        {45, {"MPI_Type_ub", "d:datatype i:ub"}},
        {46, {"MPI_Type_commit", "d:datatype"}},
        {47, {"MPI_Type_free", "d:datatype"}},
        {48, {"MPI_Get_elements", "s:status d:datatype i:elements"}},
        {49, {"MPI_Pack", "i:incount d:datatype i:outcount i:position_in i:position_out c:comm"}},
        {50, {"MPI_Unpack", "i:incount i:position_in i:position_out i:outcount d:datatype c:comm"}},
        {51, {"MPI_Pack_size", "i:incount d:datatype c:comm i:size"}},
        {52, {"MPI_Barrier", "c:comm"}},
        {53, {"MPI_Bcast", "i:count d:datatype i:root c:comm"}},
        {54,
         {"MPI_Gather",
          "i:commrank i:sendcount d:sendtype i:root c:comm ?i:recvcount ?d:recvtype"}},
        {55,
         {"MPI_Gatherv",
          "i:commrank i:commsize i:sendcount d:sendtype i:root c:comm ?A:recvcounts ?A:displs "
          "d:recvtype"}},
        {56,
         {"MPI_Scatter",
          "i:commrank i:recvcount d:recvtype i:root c:comm ?i:sendcount ?d:sendtype"}},
        {57,
         {"MPI_Scatterv",
          "i:commrank i:commsize d:sendtype i:recvcount d:recvtype i:root c:comm ?A:sendcounts "
          "?A:displs"}},
        {58, {"MPI_Allgather", "i:sendcount d:sendtype i:recvcount d:recvtype c:comm"}},
        {59,
         {"MPI_Allgatherv",
          "i:commsize i:sendcount d:sendtype A:recvcounts A:displs d:recvtype c:comm"}},
        {60, {"MPI_Alltoall", "i:sendcount d:sendtype i:recvcount d:recvtype c:comm"}},
        {61,
         {"MPI_Alltoallv",
          "i:commsize A:sendcounts A:senddispls d:sendtype A:recvcounts A:recvdispls d:recvtype "
          "c:comm"}},
        {62, {"MPI_Reduce", "i:count d:datatype o:op i:root c:comm"}},
        {63, {"MPI_Op_create", "i:commute o:op"}},
        {64, {"MPI_Op_free", "o:op"}},
        {65, {"MPI_Allreduce", "i:count d:datatype o:op c:comm"}},
        {66, {"MPI_Reduce_scatter", "i:commsize A:recvcounts d:datatype o:op c:comm"}},
        {67, {"MPI_Scan", "i:count d:datatype o:op c:comm"}},
        {68, {"MPI_Group_size", "g:group i:size"}},
        {69, {"MPI_Group_rank", "g:group i:rank"}},
        {70, {"MPI_Group_translate_ranks", "g:group1 i:count A:ranks1 g:group2 A:ranks2"}},
        {71, {"MPI_Group_compare", "g:group1 g:group2 b:result"}},
        {72, {"MPI_Comm_group", "c:comm g:group"}},
        {73, {"MPI_Group_union", "g:group1 g:group2 g:newgroup"}},
        {74, {"MPI_Group_intersection", "g:group1 g:group2 g:newgroup"}},
        {75, {"MPI_Group_difference", "g:group1 g:group2 g:newgroup"}},
        {76, {"MPI_Group_incl", "g:group i:count A:ranks g:newgroup"}},
        {77, {"MPI_Group_excl", "g:group i:count A:ranks g:newgroup"}},
        {78, {"MPI_Group_range_incl", "g:group i:count M:ranges g:newgroup"}},
        {79, {"MPI_Group_range_excl", "g:group i:count M:ranges g:newgroup"}},
        {80, {"MPI_Group_free", "g:group"}},
        {81, {"MPI_Comm_size", "c:comm i:size"}},
        {82, {"MPI_Comm_rank", "c:comm i:rank"}},
        {83, {"MPI_Comm_compare", "c:comm1 c:comm2 b:result"}},
        {84, {"MPI_Comm_dup", "c:oldcomm c:newcomm"}},
        {85, {"MPI_Comm_create", "c:oldcomm g:group c:newcomm"}},
        {86, {"MPI_Comm_split", "c:oldcomm i:color i:key c:newcomm"}},
        {87, {"MPI_Comm_free", "c:comm"}},
        {88, {"MPI_Comm_test_inter", "c:comm i:inter"}},
        {89, {"MPI_Comm_remote_size", "c:comm i:size"}},
        {90, {"MPI_Comm_remote_group", "c:comm g:group"}},
        {91,
         {"MPI_Intercomm_create",
          "c:localcomm i:localleader c:remotecomm i:remoteleader i:tag c:newcomm"}},
        {92, {"MPI_Intercomm_merge", "c:comm i:high c:newcomm"}},
        {93, {"MPI_Keyval_create", "h:key"}},
        {94, {"MPI_Keyval_free", "h:key"}},
        {95, {"MPI_Attr_put", "c:comm i:key"}},
        {96, {"MPI_Attr_get", "c:comm i:key i:flag"}},
        {97, {"MPI_Attr_delete", "c:comm i:key"}},
        {98, {"MPI_Topo_test", "c:comm b:topo"}},
        {99, {"MPI_Cart_create", "c:oldcomm i:ndim A:dims A:periods i:reorder c:newcomm"}},
        {100, {"MPI_Dims_create", "i:nodes i:ndim A:dims_in A:dims_out"}},
        {101,
         {"MPI_Graph_create", "i:numedges c:oldcomm i:nodes A:index A:edges i:reorder c:newcomm"}},
        {102, {"MPI_Graphdims_get", "c:comm i:nodes i:edges"}},
        {103,
         {"MPI_Graph_get", "i:totedges i:totnodes c:comm i:maxindex i:maxedges A:index A:edges"}},
        {104, {"MPI_Cartdim_get", "c:comm i:ndim"}},
        {105, {"MPI_Cart_get", "i:ndim c:comm i:maxdims A:dims A:periods Q:coords"}},
        {106, {"MPI_Cart_rank", "i:ndim c:comm A:coords i:rank"}},
        {107, {"MPI_Cart_coords", "i:ndim c:comm i:rank i:maxdims A:coords"}},
        {108, {"MPI_Graph_neighbors_count", "c:comm i:rank i:nneigh"}},
        {109, {"MPI_Graph_neighbors", "i:nneigh c:comm i:rank i:maxneighbors A:neighbors"}},
        {110, {"MPI_Cart_shift", "c:comm i:direction i:displ i:source i:dest"}},
        {111, {"MPI_Cart_sub", "i:ndim c:oldcomm A:remain_dims c:newcomm"}},
        {112, {"MPI_Cart_map", "c:comm i:ndim A:dims A:period i:newrank"}},
        {113, {"MPI_Graph_map", "i:numedges c:comm i:nodes A:index A:edges i:newrank"}},
        {114, {"MPI_Get_processor_name", "S:name i:resultlen"}},
        {115, {"MPI_Get_version", "i:version i:subversion"}},
        {116, {"MPI_Errhandler_create", "h:errhandler"}},
        {117, {"MPI_Errhandler_set", "c:comm h:errhandler"}},
        {118, {"MPI_Errhandler_get", "c:comm h:errhandler"}},
        {119, {"MPI_Errhandler_free", "h:errhandler"}},
        {120, {"MPI_Error_string", "i:errorcode S:errorstring i:resultlen"}},
        {121, {"MPI_Error_class", "i:errorcode i:errorclass"}},
        {122, {"MPI_Wtime", ""}},
        {123, {"MPI_Wtick", ""}},
        {124, {"MPI_Init", "i:argc V:argv"}},
        {125, {"MPI_Finalize", ""}},
        {126, {"MPI_Initialized", "i:result"}},
        {127, {"MPI_Abort", "c:comm i:errorcode"}},
        {129, {"MPI_Close_port", "S:portname"}},
        {130, {"MPI_Comm_accept", "S:portname I:info i:root c:oldcomm c:newcomm"}},
        {131, {"MPI_Comm_connect", "S:portname I:info i:root c:oldcomm c:newcomm"}},
        {132, {"MPI_Comm_disconnect", "c:comm"}},
        {133, {"MPI_Comm_get_parent", "c:parent"}},
        {134, {"MPI_Comm_join", "i:fd c:comm"}},
        {135,
         {"MPI_Comm_spawn",
          "i:oldcommrank i:root c:oldcomm c:newcomm ?S:command ?W:argv ?i:maxprocs ?I:info "
          "?A:errcodes"}},
        {136,
         {"MPI_Comm_spawn_multiple",
          "i:totprocs i:oldcommrank i:root c:oldcomm c:newcomm ?i:count ?W:commands ?X:argvs "
          "?A:maxprocs ?D:info ?A:errcodes"}},
        {137, {"MPI_Lookup_name", "S:servicename I:info S:portname"}},
        {138, {"MPI_Open_port", "I:info S:portname"}},
        {139, {"MPI_Publish_name", "S:servicename I:info S:portname"}},
        {140, {"MPI_Unpublish_name", "S:servicename I:info S:portname"}},
        {141,
         {"MPI_Accumulate",
          "i:origincount d:origintype i:targetrank i:targetdisp i:targetcount d:targettype o:op "
          "h:win"}},
        {142,
         {"MPI_Get",
          "i:origincount d:origintype i:targetrank i:targetdisp i:targetcount d:targettype h:win"}},
        {143,
         {"MPI_Put",
          "i:origincount d:origintype i:targetrank i:targetdisp i:targetcount d:targettype h:win"}},
        {144, {"MPI_Win_complete", "h:win"}},
        {145, {"MPI_Win_create", "i:size i:dispunit I:info c:comm h:win"}},
        {146, {"MPI_Win_fence", "b:assertion h:win"}},
        {147, {"MPI_Win_free", "h:win"}},
        {148, {"MPI_Win_get_group", "h:win g:group"}},
        {149, {"MPI_Win_lock", "b:locktype i:winrank b:assertion h:win"}},
        {150, {"MPI_Win_post", "g:group b:assertion h:win"}},
        {151, {"MPI_Win_start", "g:group b:assertion h:win"}},
        {152, {"MPI_Win_test", "h:win i:flag"}},
        {153, {"MPI_Win_unlock", "i:winrank h:win"}},
        {154, {"MPI_Win_wait", "h:win"}},
        {155,
         {"MPI_Alltoallw",
          "i:commsize A:sendcounts A:senddispls D:sendtypes A:recvcounts A:recvdispls D:recvtypes "
          "c:comm"}},
        {156, {"MPI_Exscan", "i:count d:datatype o:op c:comm"}},
        {157, {"MPI_Add_error_class", "i:errorclass"}},
        {158, {"MPI_Add_error_code", "i:errorclass i:errorcode"}},
        {159, {"MPI_Add_error_string", "i:errorcode S:errorstring"}},
        {160, {"MPI_Comm_call_errhandler", "c:comm i:errorcode"}},
        {161, {"MPI_Comm_create_keyval", "h:keyval"}},
        {162, {"MPI_Comm_delete_attr", "c:comm h:keyval"}},
        {163, {"MPI_Comm_free_keyval", "h:keyval"}},
        {164, {"MPI_Comm_get_attr", "c:comm h:keyval i:flag"}},
        {165, {"MPI_Comm_get_name", "c:comm S:name i:resultlen"}},
        {166, {"MPI_Comm_set_attr", "c:comm h:keyval"}},
        {167, {"MPI_Comm_set_name", "c:comm S:name"}},
        {168, {"MPI_File_call_errhandler", "f:file i:errorcode"}},
        {169, {"MPI_Grequest_complete", "r:request"}},
        {170, {"MPI_Grequest_start", "r:request"}},
        {171, {"MPI_Init_thread", "i:argc v:argv b:required b:provided"}},
        {172, {"MPI_Is_thread_main", "i:flag"}},
        {173, {"MPI_Query_thread", "b:supported"}},
        {174, {"MPI_Status_set_cancelled", "s:status i:flag"}},
        {175, {"MPI_Status_set_elements", "s:status d:datatype i:count"}},
        {176, {"MPI_Type_create_keyval", "h:keyval"}},
        {177, {"MPI_Type_delete_attr", "d:datatype h:keyval"}},
        {178, {"MPI_Type_dup", "d:oldtype d:newtype"}},
        {179, {"MPI_Type_free_keyval", "h:keyval"}},
        {180, {"MPI_Type_get_attr", "d:datatype h:keyval i:flag"}},
        {181,
         {"MPI_Type_get_contents",
          "i:numdatatypes i:numaddresses i:numintegers d:datatype i:maxintegers i:maxaddresses "
          "i:maxdatatypes A:arrintegers A:arraddresses D:arrdatatypes"}},
        {182,
         {"MPI_Type_get_envelope",
          "d:datatype i:numintegers i:numaddresses i:numdatatypes b:combiner"}},
        {183, {"MPI_Type_get_name", "d:datatype S:name i:resultlen"}},
        {184, {"MPI_Type_set_attr", "d:datatype h:keyval"}},
        {185, {"MPI_Type_set_name", "d:datatype S:name"}},
        {186, {"MPI_Type_match_size", "b:typeclass i:size d:datatype"}},
        {187, {"MPI_Win_call_errhandler", "h:win i:errorcode"}},
        {188, {"MPI_Win_create_keyval", "h:keyval"}},
        {189, {"MPI_Win_delete_attr", "h:win h:keyval"}},
        {190, {"MPI_Win_free_keyval", "h:keyval"}},
        {191, {"MPI_Win_get_attr", "h:win h:keyval i:flag"}},
        {192, {"MPI_Win_get_name", "h:win S:name i:resultlen"}},
        {193, {"MPI_Win_set_attr", "h:win h:keyval"}},
        {194, {"MPI_Win_set_name", "h:win S:name"}},
        {195, {"MPI_Alloc_mem", "i:size I:info"}},
        {196, {"MPI_Comm_create_errhandler", "h:errhandler"}},
        {197, {"MPI_Comm_get_errhandler", "c:comm h:errhandler"}},
        {198, {"MPI_Comm_set_errhandler", "c:comm h:errhandler"}},
        {199, {"MPI_File_create_errhandler", "h:errhandler"}},
        {200, {"MPI_File_get_errhandler", "f:file h:errhandler"}},
        {201, {"MPI_File_set_errhandler", "f:file h:errhandler"}},
        {202, {"MPI_Finalized", "i:flag"}},
        {203, {"MPI_Free_mem", ""}},
        {204, {"MPI_Get_address", "i:address"}},
        {205, {"MPI_Info_create", "I:info"}},
        {206, {"MPI_Info_delete", "I:info S:key"}},
        {207, {"MPI_Info_dup", "I:oldinfo I:newinfo"}},
        {208, {"MPI_Info_free", "I:info"}},
        {209, {"MPI_Info_get", "I:info S:key i:valuelength S:value i:flag"}},
        {210, {"MPI_Info_get_nkeys", "I:info i:nkeys"}},
        {211, {"MPI_Info_get_nthkey", "I:info i:n S:key"}},
        {212, {"MPI_Info_get_valuelen", "I:info S:key i:valuelen i:flag"}},
        {213, {"MPI_Info_set", "I:info S:key S:value"}},
        {214,
         {"MPI_Pack_external",
          "S:datarep i:incount d:intype i:outcount i:position_in i:position_out"}},
        {215, {"MPI_Pack_external_size", "S:datarep i:incount d:datatype i:size"}},
        {216, {"MPI_Request_get_status", "r:request i:flag s:status"}},
        {217,
         {"MPI_Type_create_darray",
          "i:size i:rank i:ndims A:gsizes B:distribs A:dargs A:psizes b:order d:oldtype "
          "d:newtype"}},
        {218,
         {"MPI_Type_create_hindexed",
          "i:count A:blocklengths A:displacements d:oldtype d:newtype"}},
        {219, {"MPI_Type_create_hvector", "i:count i:blocklength i:stride d:oldtype d:newtype"}},
        {220,
         {"MPI_Type_create_indexed_block",
          "i:count i:blocklength A:displacments d:oldtype d:newtype"}},
        {221, {"MPI_Type_create_resized", "d:oldtype i:lb i:extent d:newtype"}},
        {222,
         {"MPI_Type_create_struct", "i:count A:blocklengths A:displacements D:oldtypes d:newtype"}},
        {223,
         {"MPI_Type_create_subarray",
          "i:ndims A:sizes A:subsizes A:starts b:order d:oldtype d:newtype"}},
        {224, {"MPI_Type_get_extent", "d:datatype i:lb i:extent"}},
        {225, {"MPI_Type_get_true_extent", "d:datatype i:lb i:extent"}},
        {226,
         {"MPI_Unpack_external",
          "S:datarep i:insize i:position_in i:position_out i:outcount d:datatype"}},
        {227, {"MPI_Win_create_errhandler", "h:errhandler"}},
        {228, {"MPI_Win_get_errhandler", "h:win h:errhandler"}},
        {229, {"MPI_Win_set_errhandler", "h:win h:errhandler"}},
        {230, {"MPI_File_open", "c:comm S:filename m:amode I:info f:file"}},
        {231, {"MPI_File_close", "f:file"}},
        {232, {"MPI_File_delete", "S:filename I:info"}},
        {233, {"MPI_File_set_size", "f:file l:size"}},
        {234, {"MPI_File_preallocate", "f:file l:size"}},
        {235, {"MPI_File_get_size", "f:file l:size"}},
        {236, {"MPI_File_get_group", "f:file g:group"}},
        {237, {"MPI_File_get_amode", "f:file m:amode"}},
        {238, {"MPI_File_set_info", "f:file I:info"}},
        {239, {"MPI_File_get_info", "f:file I:info"}},
        {240, {"MPI_File_set_view", "f:file l:offset d:hosttype d:filetype S:datarep I:info"}},
        {241, {"MPI_File_get_view", "f:file l:offset d:hosttype d:filetype S:datarep"}},
        {242, {"MPI_File_read_at", "f:file l:offset i:count d:datatype s:status"}},
        {243, {"MPI_File_read_at_all", "f:file l:offset i:count d:datatype s:status"}},
        {244, {"MPI_File_write_at", "f:file l:offset i:count d:datatype s:status"}},
        {245, {"MPI_File_write_at_all", "f:file l:offset i:count d:datatype s:status"}},
        {246, {"MPI_File_iread_at", "f:file l:offset i:count d:datatype r:request"}},
        {247, {"MPI_File_iwrite_at", "f:file l:offset i:count d:datatype r:request"}},
        {248, {"MPI_File_read", "f:file i:count d:datatype s:status"}},
        {249, {"MPI_File_read_all", "f:file i:count d:datatype s:status"}},
        {250, {"MPI_File_write", "f:file i:count d:datatype s:status"}},
        {251, {"MPI_File_write_all", "f:file i:count d:datatype s:status"}},
        {252, {"MPI_File_iread", "f:file i:count d:datatype r:request"}},
        {253, {"MPI_File_iwrite", "f:file i:count d:datatype r:request"}},
        {254, {"MPI_File_seek", "f:file l:offset w:whence"}},
        {255, {"MPI_File_get_position", "f:file l:offset"}},
        {256, {"MPI_File_get_byte_offset", "f:file l:offset l:bytes"}},
        {257, {"MPI_File_read_shared", "f:file i:count d:datatype s:status"}},
        {258, {"MPI_File_write_shared", "f:file i:count d:datatype s:status"}},
        {259, {"MPI_File_iread_shared", "f:file i:count d:datatype r:request"}},
        {260, {"MPI_File_iwrite_shared", "f:file i:count d:datatype r:request"}},
        {261, {"MPI_File_read_ordered", "f:file i:count d:datatype s:status"}},
        {262, {"MPI_File_write_ordered", "f:file i:count d:datatype s:status"}},
        {263, {"MPI_File_seek_shared", "f:file l:offset w:whence"}},
        {264, {"MPI_File_get_position_shared", "f:file l:offset"}},
        {265, {"MPI_File_read_at_all_begin", "f:file l:offset i:count d:datatype"}},
        {266, {"MPI_File_read_at_all_end", "f:file s:status"}},
        {267, {"MPI_File_write_at_all_begin", "f:file l:offset i:count d:datatype"}},
        {268, {"MPI_File_write_at_all_end", "f:file s:status"}},
        {269, {"MPI_File_read_all_begin", "f:file i:count d:datatype"}},
        {270, {"MPI_File_read_all_end", "f:file s:status"}},
        {271, {"MPI_File_write_all_begin", "f:file i:count d:datatype"}},
        {272, {"MPI_File_write_all_end", "f:file s:status"}},
        {273, {"MPI_File_read_ordered_begin", "f:file i:count d:datatype"}},
        {274, {"MPI_File_read_ordered_end", "f:file s:status"}},
        {275, {"MPI_File_write_ordered_begin", "f:file i:count d:datatype"}},
        {276, {"MPI_File_write_ordered_end", "f:file s:status"}},
        {277, {"MPI_File_get_type_extent", "f:file d:datatype i:extent"}},
        {278, {"MPI_Register_datarep", "S:name"}},
        {279, {"MPI_File_set_atomicity", "f:file i:flag"}},
        {280, {"MPI_File_get_atomicity", "f:file i:flag"}},
        {281, {"MPI_File_sync", "f:file"}},
        {282, {"MPIO_Test", "r:request i:flag s:status"}},
        {283, {"MPIO_Wait", "r:request s:status"}},
        {284, {"MPIO_Testall", "i:count A:requests i:flag s:statuses"}},
        {285, {"MPIO_Waitall", "i:count A:requests s:statuses"}},
        {286, {"MPIO_Testany", "i:count A:requests i:flag i:index s:statuses"}},
        {287, {"MPIO_Waitany", "i:count A:requests i:index s:statuses"}},
        {288, {"MPIO_Waitsome", "i:count A:requests i:outcount A:indices s:statuses"}},
        {289, {"MPIO_Testsome", "i:count A:requests i:outcount A:indices s:statuses"}},
        {291, {"function_enter", "l:fn"}},
        {292, {"function_exit", "l:fn"}},
    };
    return m;
}

class Bytes {
  public:
    Bytes(std::string path, std::string data) : path_(std::move(path)), d_(std::move(data)) {}
    std::size_t size() const { return d_.size(); }
    std::size_t pos() const { return pos_; }
    void seek(std::uint64_t p, const char* part) {
        if (p > d_.size())
            throw InputError(path_, 0,
                             fmt::format("corrupt index: the {} is at byte offset {}, beyond "
                                         "the file's {} bytes",
                                         part, p, d_.size()));
        pos_ = static_cast<std::size_t>(p);
    }
    void context(std::string c) { ctx_ = std::move(c); }
    void need(std::uint64_t n) const {
        if (n > d_.size() - pos_)
            throw InputError(path_, 0,
                             fmt::format("truncated: expected {} more bytes at byte offset {} "
                                         "({}); the file has {} bytes",
                                         n, pos_, ctx_, d_.size()));
    }
    std::uint64_t get(int n) {
        need(static_cast<std::uint64_t>(n));
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<std::uint8_t>(d_[pos_++]);
        return v;
    }
    std::uint8_t u8() { return static_cast<std::uint8_t>(get(1)); }
    std::uint16_t u16() { return static_cast<std::uint16_t>(get(2)); }
    std::uint32_t u32() { return static_cast<std::uint32_t>(get(4)); }
    std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
    std::uint64_t u64() { return get(8); }
    std::string bytes(std::uint64_t n) {
        need(n);
        std::string s = d_.substr(pos_, static_cast<std::size_t>(n));
        pos_ += static_cast<std::size_t>(n);
        return s;
    }
    [[noreturn]] void corrupt(const std::string& what) const {
        throw InputError(path_, 0, fmt::format("{} at byte offset {} ({})", what, pos_, ctx_));
    }

  private:
    std::string path_;
    std::string d_;
    std::size_t pos_ = 0;
    std::string ctx_ = "header";
};

std::string read_dumpi_bytes(const std::string& path) {
    refuse_non_file(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "cannot open for reading");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool at_least(const std::uint8_t v[3], int a, int b, int c) {
    if (v[0] != a) return v[0] > a;
    if (v[1] != b) return v[1] > b;
    return v[2] >= c;
}

// Where the parts of a DUMPI file are (byte offsets; 0: absent).
struct DumpiIndex {
    std::uint64_t sizelbl = 0, header = 0, body = 0;
};

DumpiIndex read_dumpi_index(Bytes& in) {
    // the index at the end (older files lack sizelbl, addrlbl, perflbl: read as SST does)
    if (in.size() < 8 + 64) in.corrupt("truncated: no room for the index");
    in.seek(in.size() - 64, "index");
    in.context("index");
    DumpiIndex where;
    std::uint64_t m = in.u64();
    std::uint64_t labels_at[3] = {0, 0, 0};  // sizelbl, addrlbl, perflbl
    for (auto& at : labels_at) {
        if (m != kDumpiMagic)
            m = in.u64();
        else
            at = in.u64();
    }
    where.sizelbl = labels_at[0];
    if (m != kDumpiMagic) in.corrupt("no DUMPI index (file truncated?)");
    where.header = in.u64();
    where.body = in.u64();
    (void)in.u64();  // footer: call counts, not needed
    return where;
}

// Reads a record's config mask and what it announces before the arguments (thread, cpu and
// wall times, perf counters); returns the mask.
std::uint8_t read_dumpi_call_prefix(Bytes& in, DumpiCall& c, std::int64_t cpu_offset,
                                    std::int64_t wall_offset) {
    const std::uint8_t mask = in.u8();
    if (mask & 0x40) c.thread = in.u16();
    auto times = [&](std::int64_t off, std::int64_t& a, std::int64_t& b) {
        const std::int64_t s0 = in.u16() + off;
        const std::int64_t n0 = in.u32();
        const std::int64_t s1 = in.u16() + off;
        const std::int64_t n1 = in.u32();
        a = s0 * 1'000'000'000 + n0;
        b = s1 * 1'000'000'000 + n1;
    };
    if (mask & 0x04) {
        c.has_cpu = true;
        times(cpu_offset, c.cpu_start, c.cpu_end);
    }
    if (mask & 0x08) {
        c.has_wall = true;
        times(wall_offset, c.wall_start, c.wall_end);
        if (c.wall_end < c.wall_start)
            in.corrupt(
                fmt::format("the call returns at wall time {} ns, before it starts at "
                            "{} ns",
                            c.wall_end, c.wall_start));
    }
    if (mask & 0x80) {
        const std::uint8_t n = in.u8();
        in.need(16ull * n);
        for (int i = 0; i < 2 * n; ++i) (void)in.u64();
    }
    return mask;
}

// Reads the argument of layout token `tok` ("T:name") into the call (`mask`: the record's
// config mask; `status_tag`: statuses carry their tag).
void read_dumpi_argument(Bytes& in, DumpiCall& c, const std::string& tok, std::uint8_t mask,
                         const std::uint8_t version[3], bool status_tag) {
    const char t = tok[0];
    const std::string an = tok.substr(2);
    switch (t) {
        case 'i':
            c.args.emplace_back(an, in.i32());
            break;
        case 'r':
            c.args.emplace_back(an, in.u32());
            break;
        case 'l':
            c.args.emplace_back(an, static_cast<std::int64_t>(in.u64()));
            break;
        case 'd':
        case 'c':
        case 'g':
        case 'f':
        case 'I':
        case 'h':
            c.args.emplace_back(an, in.u16());
            break;
        case 'o':
        case 'm':
        case 'w':
        case 'b':
            c.args.emplace_back(an, in.u8());
            break;
        case 'A':
        case 'D':
        case 'B': {
            const std::uint32_t n = in.u32();
            const int width = t == 'A' ? 4 : t == 'D' ? 2 : 1;
            in.need(static_cast<std::uint64_t>(width) * n);
            std::vector<std::int64_t> v(n);
            for (auto& x : v) x = t == 'A' ? in.i32() : static_cast<std::int64_t>(in.get(width));
            c.arrays.emplace_back(an, std::move(v));
            break;
        }
        case 'P':
        case 'Q': {
            if (at_least(version, 0, 6, t == 'P' ? 9 : 8)) {
                const std::uint32_t n = in.u32();
                in.need(4ull * n);
                std::vector<std::int64_t> v(n);
                for (auto& x : v) x = in.i32();
                c.arrays.emplace_back(an, std::move(v));
            } else {
                c.arrays.emplace_back(an, std::vector<std::int64_t>{in.i32()});
            }
            break;
        }
        case 'M': {
            const std::uint32_t n = in.u32();
            in.need(4ull * n);
            for (std::uint32_t i = 0; i < n; ++i) {
                const std::uint32_t k = in.u32();
                in.need(4ull * k);
                for (std::uint32_t j = 0; j < k; ++j) (void)in.u32();
            }
            break;
        }
        case 'S':
            c.strings.emplace_back(an, in.bytes(in.u32()));
            break;
        case 'W':
        case 'X': {
            const std::uint32_t n = in.u32();
            in.need(4ull * n);
            for (std::uint32_t i = 0; i < n; ++i) {
                const std::uint32_t k = t == 'X' ? in.u32() : 1;
                in.need(4ull * k);
                for (std::uint32_t j = 0; j < k; ++j)
                    c.strings.emplace_back(an, in.bytes(in.u32()));
            }
            break;
        }
        case 'V':    // argv: argc char arrays (files before 0.6.2 repeat argc)
        case 'v': {  // the same without the repetition (MPI_Init_thread)
            const std::int64_t n = c.arg("argc");
            if (t == 'V' && !at_least(version, 0, 6, 2)) (void)in.u32();
            if (n < 0) in.corrupt(fmt::format("negative argc {}", n));
            in.need(4ull * static_cast<std::uint64_t>(n));
            for (std::int64_t i = 0; i < n; ++i) c.strings.emplace_back(an, in.bytes(in.u32()));
            break;
        }
        case 's': {
            if ((mask & 0x03) == 0) break;
            const std::uint32_t n = in.u32();
            const std::uint64_t each = status_tag ? 14 : 10;
            in.need(each * n);
            for (std::uint32_t i = 0; i < n; ++i) {
                c.status_bytes.push_back(in.i32());
                (void)in.u32();  // source
                (void)in.u8();   // cancelled
                (void)in.u8();   // error
                if (status_tag) (void)in.u32();
            }
            break;
        }
        default:
            throw std::logic_error(std::string("dumpi layout token ") + t);
    }
}

}  // namespace

DumpiFile read_dumpi_file(const std::string& path) {
    Bytes in(path, read_dumpi_bytes(path));
    DumpiFile f;
    if (in.size() < 8 || in.u64() != kDumpiMagic)
        throw InputError(path, 0, "not a DUMPI trace: it does not start with the DUMPI magic");
    const DumpiIndex where = read_dumpi_index(in);
    // header
    if (where.header > 0) {
        in.seek(where.header, "header");
        in.context("header");
        for (auto& v : f.version) v = in.u8();
        (void)in.u64();  // start time
        f.hostname = in.bytes(in.u16());
        f.username = in.bytes(in.u16());
    }
    if (where.sizelbl > 0) {
        in.seek(where.sizelbl, "datatype size table");
        in.context("datatype sizes");
        const std::uint32_t n = in.u32();
        in.need(4ull * n);
        for (std::uint32_t i = 0; i < n; ++i) f.datatype_sizes.push_back(in.u32());
    }
    // body
    in.seek(where.body, "body");
    in.context("body");
    const std::int64_t cpu_offset = in.u32();
    const std::int64_t wall_offset = in.u32();
    const bool status_tag = at_least(f.version, 0, 6, 3);
    for (std::uint64_t index = 0;; ++index) {
        const std::size_t at = in.pos();
        in.context(fmt::format("record {}", index));
        const std::uint16_t label = in.u16();
        if (label == kEndOfStream) break;
        auto lay = layouts().find(label);
        if (lay == layouts().end()) {
            if (label >= kAllFunctions) in.corrupt(fmt::format("invalid function label {}", label));
            in.corrupt(
                fmt::format("DUMPI function label {} has no argument layout clustersim "
                            "knows (record at byte offset {})",
                            label, at));
        }
        const std::string name = lay->second.name;
        in.context(fmt::format("record {}, {}", index, name));
        DumpiCall c;
        c.name = name;
        c.label = label;
        c.offset = at;
        const std::uint8_t mask = read_dumpi_call_prefix(in, c, cpu_offset, wall_offset);
        std::istringstream tokens(lay->second.args);
        std::string tok;
        while (tokens >> tok) {
            bool root_only = false;
            if (tok[0] == '?') {
                root_only = true;
                tok = tok.substr(1);
            }
            if (root_only) {
                const char* me = c.has("commrank") ? "commrank" : "oldcommrank";
                if (!c.has(me) || !c.has("root") || c.arg(me) != c.arg("root")) continue;
            }
            read_dumpi_argument(in, c, tok, mask, f.version, status_tag);
        }
        f.calls.push_back(std::move(c));
    }
    return f;
}

}  // namespace clustersim::traces
