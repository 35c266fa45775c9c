// netcdf-c++4 (Debian's libnetcdf_c++4.so.1) over whichever libnetcdf.so.19
// the loader finds: write a netCDF-4 file with a group, an unlimited
// dimension, a deflated variable, a string variable and attributes through
// netCDF::NcFile, then read it back and print everything read, so the test
// compares the printout over both libraries.
// Usage: cxx4_roundtrip PATH
#include <netcdf>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

using namespace netCDF;

int main(int argc, char **argv) {
    if (argc != 2) {
        std::cerr << "usage: " << argv[0] << " PATH\n";
        return 2;
    }
    const std::string path = argv[1];
    try {
        {
            NcFile f(path, NcFile::replace, NcFile::nc4);
            f.putAtt("title", "written by netcdf-c++4");
            f.putAtt("answer", ncInt, 42);
            NcDim t = f.addDim("t");  // unlimited
            NcDim x = f.addDim("x", 3);
            NcVar v = f.addVar("v", ncDouble, std::vector<NcDim>{t, x});
            v.setCompression(true, true, 5);
            v.putAtt("units", "m s-1");
            std::vector<double> vals = {0.5, 1.5, 2.5, -3.25, 4e10, 1e-9};
            v.putVar(std::vector<size_t>{0, 0}, std::vector<size_t>{2, 3}, vals.data());

            NcGroup g = f.addGroup("grp");
            g.putAtt("kind", "subgroup");
            NcDim n = g.addDim("n", 4);
            NcVar s = g.addVar("names", ncString, n);
            const char *names[] = {"alpha", "", "gamma delta", "\xc3\xa9t\xc3\xa9"};
            s.putVar(names);
            NcVar i = g.addVar("ints", ncInt64, n);
            long long ints[] = {-9223372036854775807LL, 0, 1, 9223372036854775807LL};
            i.putVar(ints);
        }
        NcFile f(path, NcFile::read);
        std::string title;
        f.getAtt("title").getValues(title);
        int answer = 0;
        f.getAtt("answer").getValues(&answer);
        std::cout << "title=" << title << " answer=" << answer << "\n";
        NcVar v = f.getVar("v");
        std::cout << "t=" << f.getDim("t").getSize() << " unlimited=" << f.getDim("t").isUnlimited()
                  << " x=" << f.getDim("x").getSize() << "\n";
        bool shuffle = false, deflate = false;
        int level = 0;
        v.getCompressionParameters(shuffle, deflate, level);
        std::cout << "v deflate=" << deflate << " shuffle=" << shuffle << " level=" << level << "\n";
        std::string units;
        v.getAtt("units").getValues(units);
        std::vector<double> vals(6);
        v.getVar(vals.data());
        std::cout << "v units=" << units << " values=";
        for (double d : vals) std::cout << d << " ";
        std::cout << "\n";
        NcGroup g = f.getGroup("grp");
        std::string kind;
        g.getAtt("kind").getValues(kind);
        std::cout << "group " << g.getName() << " kind=" << kind << " groups=" << f.getGroupCount() << "\n";
        char *names[4] = {nullptr, nullptr, nullptr, nullptr};
        g.getVar("names").getVar(names);
        for (char *s : names) std::cout << "name=[" << s << "]\n";
        nc_free_string(4, names);
        long long ints[4];
        g.getVar("ints").getVar(ints);
        for (long long v64 : ints) std::cout << "int64=" << v64 << "\n";
    } catch (exceptions::NcException &e) {
        std::cerr << "netCDF error: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
