/* Stand-in for Debian's libhdf5_serial.so.103 under the oracle: ncgen
 * NEEDs that library for the single symbol H5Eprint1@HDF5_SERIAL_1.8.7
 * (it prints the HDF5 error stack on a failure), and loading Debian's real
 * HDF5 next to the wheel's own HDF5 crashes. The wheel's netcdf-c reports
 * its errors through its own HDF5; this stub prints nothing. */
int H5Eprint1(void *stream)
{
    (void)stream;
    return 0;
}
