! test_fortran_mpifh: the three collectives called from Fortran through `include 'mpif.h'`
! (MPICH's Fortran bindings reach the C MPI_* symbols; Open MPI's reach collshim's Fortran entry
! points, src/shim/fortran.c): MPI_Allreduce (also with MPI_IN_PLACE), MPI_Reduce and
! MPI_Alltoall, in tests/mpi/fortran_body.inc. Prints only failures; `error stop` if any.
program test_fortran_mpifh
  implicit none
  include 'mpif.h'
  include 'fortran_body.inc'
end program test_fortran_mpifh
