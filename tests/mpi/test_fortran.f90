! test_fortran: the three collectives called from Fortran through `use mpi` (MPICH's Fortran
! bindings reach the C MPI_* symbols, so collshim intercepts them): MPI_Allreduce (also with
! MPI_IN_PLACE), MPI_Reduce and MPI_Alltoall on integer and double precision data, checked
! against known results. Prints only failures; `error stop` if any.
program test_fortran
  use mpi
  implicit none
  integer, parameter :: counts(4) = [1, 7, 1000, 70000]
  integer :: ierr, rank, p, c, n, i, j, failures
  integer, allocatable :: ia(:), ib(:)
  double precision, allocatable :: da(:), db(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, p, ierr)
  failures = 0

  do c = 1, size(counts)
    n = counts(c)
    allocate(ia(n), ib(n), da(n), db(n))
    ia = [((rank + 1) * i, i = 1, n)]
    da = [(rank + 0.5d0 * i, i = 1, n)]

    call MPI_Allreduce(ia, ib, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect(ierr == MPI_SUCCESS .and. all(ib == [(i * (p * (p + 1) / 2), i = 1, n)]), &
                'allreduce integer sum', n)
    call MPI_Allreduce(da, db, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect(ierr == MPI_SUCCESS .and. all(db == [(p * 0.5d0 * i + p * (p - 1) / 2, i = 1, n)]), &
                'allreduce double sum', n)

    ib = ia
    call MPI_Allreduce(MPI_IN_PLACE, ib, n, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
    call expect(ierr == MPI_SUCCESS .and. all(ib == [(p * i, i = 1, n)]), 'allreduce in place max', n)
    db = da
    call MPI_Allreduce(MPI_IN_PLACE, db, n, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call expect(ierr == MPI_SUCCESS .and. all(db == [(p * 0.5d0 * i + p * (p - 1) / 2, i = 1, n)]), &
                'allreduce in place double sum', n)

    ib = -1
    call MPI_Reduce(ia, ib, n, MPI_INTEGER, MPI_SUM, p - 1, MPI_COMM_WORLD, ierr)
    call expect(ierr == MPI_SUCCESS .and. (rank /= p - 1 .or. all(ib == [(i * (p * (p + 1) / 2), i = 1, n)])), &
                'reduce integer sum', n)
    db = -1
    call MPI_Reduce(da, db, n, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
    call expect(ierr == MPI_SUCCESS .and. (rank /= 0 .or. all(db == [(p * 0.5d0 * i + p * (p - 1) / 2, i = 1, n)])), &
                'reduce double sum', n)
    deallocate(ia, ib, da, db)

    ! Alltoall: block j (0-based) of rank r holds 1000*r + j in each of its n/p+1 elements.
    allocate(ia((n / p + 1) * p), ib((n / p + 1) * p), da((n / p + 1) * p), db((n / p + 1) * p))
    ia = [((1000 * rank + j, i = 1, n / p + 1), j = 0, p - 1)]
    da = ia + 0.25d0
    call MPI_Alltoall(ia, n / p + 1, MPI_INTEGER, ib, n / p + 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call expect(ierr == MPI_SUCCESS .and. all(ib == [((1000 * j + rank, i = 1, n / p + 1), j = 0, p - 1)]), &
                'alltoall integer', n / p + 1)
    call MPI_Alltoall(da, n / p + 1, MPI_DOUBLE_PRECISION, db, n / p + 1, MPI_DOUBLE_PRECISION, &
                      MPI_COMM_WORLD, ierr)
    call expect(ierr == MPI_SUCCESS .and. all(db == [((1000 * j + rank + 0.25d0, i = 1, n / p + 1), j = 0, p - 1)]), &
                'alltoall double', n / p + 1)
    deallocate(ia, ib, da, db)
  end do

  call MPI_Finalize(ierr)
  if (failures > 0) error stop 1

contains

  subroutine expect(ok, what, count)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    integer, intent(in) :: count
    if (.not. ok) then
      failures = failures + 1
      print '(a, i0, a, i0, 3a, i0)', 'FAIL rank ', rank, '/', p, ': ', what, ' count ', count
    end if
  end subroutine expect

end program test_fortran
