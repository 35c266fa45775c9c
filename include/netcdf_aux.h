/* netcdf_aux.h: netcdf-c's auxiliary API (the public header of the same
 * name, netcdf-c 4.9.0). Include netcdf.h first.
 *
 * nczarr-rs implements the filter spec parsers and
 * ncaux_class_alignment; the others are declared for source
 * compatibility and listed in ctests/abi/pending_symbols.txt. */
#ifndef NCAUX_H
#define NCAUX_H

#define NCAUX_ALIGN_C 0
#define NCAUX_ALIGN_UNIFORM 1

#if defined(__cplusplus)
extern "C" {
#endif

/* Deprecated wrappers of nc_reclaim_data and nc_reclaim_data_all. */
EXTERNL int ncaux_reclaim_data(int ncid, int xtype, void *memory, size_t count);
EXTERNL int ncaux_reclaim_data_all(int ncid, int xtype, void *memory, size_t count);

/* A filter id and its parameters in HDF5's unsigned int form. */
typedef struct NC_H5_Filterspec {
    unsigned int filterid;
    size_t nparams;
    unsigned int *params;
} NC_H5_Filterspec;

/* Parse "id,p1,p2,..." (parameters malloc'ed, caller frees). */
EXTERNL int ncaux_h5filterspec_parse(const char *txt, unsigned int *idp, size_t *nparamsp, unsigned int **paramsp);
/* Parse "[format]id,p,...|id,p,..." into a malloc'ed vector of malloc'ed
 * specs; free each with ncaux_h5filterspec_free, then the vector. */
EXTERNL int ncaux_h5filterspec_parselist(const char *txt0, int *formatp, size_t *nspecsp, struct NC_H5_Filterspec ***vectorp);
/* Parse one typed parameter into one or two unsigned ints. */
EXTERNL int ncaux_h5filterspec_parse_parameter(const char *txt, size_t *nuiparamsp, unsigned int *uiparams);
EXTERNL void ncaux_h5filterspec_free(struct NC_H5_Filterspec *f);
/* Convert an 8-byte value to (decode=0) or from (decode=1) the form HDF5
 * filters receive it in; nothing to do on little-endian machines. */
EXTERNL void ncaux_h5filterspec_fix8(unsigned char *mem, int decode);

EXTERNL int ncaux_readfile(const char *filename, size_t *sizep, void **content);
EXTERNL int ncaux_writefile(const char *filename, size_t size, void *content);

/* C alignment of a type, or of a type class (atomic types, NC_VLEN,
 * NC_OPAQUE). */
EXTERNL int ncaux_type_alignment(int xtype, int ncid, size_t *alignp);
EXTERNL int ncaux_class_alignment(int ncclass, size_t *alignp);

/* Build compound types with C layout. */
EXTERNL int ncaux_begin_compound(int ncid, const char *name, int alignmode, void **tag);
EXTERNL int ncaux_end_compound(void *tag, nc_type *xtypeid);
EXTERNL int ncaux_abort_compound(void *tag);
EXTERNL int ncaux_add_field(void *tag, const char *name, nc_type field_type, int ndims, const int *dimsizes);

#if defined(__cplusplus)
}
#endif

#endif /* NCAUX_H */
