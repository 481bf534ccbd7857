! A Fortran halo exchange for the tracer's Fortran test (tests/test_realmpi_fortran.cpp),
! through the `mpi` module. Its twins halo_f08.f90 (`use mpi_f08`) and halo_mpif.f90
! (`include 'mpif.h'`) make the same calls: per iteration a nonblocking halo exchange
! (2 MPI_Irecv, 2 MPI_Isend, MPI_Waitall), an MPI_Sendrecv and an MPI_Allreduce; then a 2-D
! Cartesian grid whose rows (MPI_Cart_sub) reduce and broadcast, the node's ranks
! (MPI_Comm_split_type) meet in a barrier, and both communicators are freed.
! Usage: halo_mpi ITERATIONS; rank 0 prints the result (the same traced or not).
program halo_mpi
  use mpi
  implicit none
  integer, parameter :: n = 4096
  integer :: rank, nprocs, left, right, it, i, iters
  double precision :: u(0:n+1), s, total, edge
  integer :: req(4), ierr
  integer :: cart, row, node
  integer :: dims(2)
  logical :: periods(2), remain(2)
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg)
  read (arg, *) iters
  left = mod(rank + nprocs - 1, nprocs)
  right = mod(rank + 1, nprocs)
  u = rank + 1
  total = 0
  do it = 1, iters
    call MPI_Irecv(u(0), 1, MPI_DOUBLE_PRECISION, left, 1, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Irecv(u(n+1), 1, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Isend(u(n), 1, MPI_DOUBLE_PRECISION, right, 1, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Isend(u(1), 1, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, req(4), ierr)
    call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
    do i = 1, n
      u(i) = 0.5d0 * u(i) + 0.25d0 * (u(i-1) + u(i+1))
    end do
    call MPI_Sendrecv(u(n), 1, MPI_DOUBLE_PRECISION, right, 3, edge, 1, MPI_DOUBLE_PRECISION, &
                      left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    s = sum(u(1:n)) + edge
    call MPI_Allreduce(s, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  periods = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  remain = (/ .false., .true. /)
  call MPI_Cart_sub(cart, remain, row, ierr)
  call MPI_Allreduce(total, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, row, ierr)
  call MPI_Bcast(s, 1, MPI_DOUBLE_PRECISION, 0, row, ierr)
  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node, ierr)
  call MPI_Barrier(node, ierr)
  call MPI_Comm_free(row, ierr)
  call MPI_Comm_free(node, ierr)
  if (rank == 0) print '(a,es24.16)', 'halo: total ', s
  call MPI_Finalize(ierr)
end program halo_mpi
