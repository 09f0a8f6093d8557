"""Zero the contents of every section of an ELF64 file except the ones DWARF CFI unwinding and
symbolization need (.eh_frame, .eh_frame_hdr, .debug_frame, .symtab, .strtab, .shstrtab, build-id
note); headers, sizes and addresses stay."""
import struct,sys
src,dst=sys.argv[1],sys.argv[2]
d=bytearray(open(src,'rb').read())
assert d[:4]==b'\x7fELF' and d[4]==2 and d[5]==1
shoff,=struct.unpack_from('<Q',d,0x28)
shentsize,shnum,shstrndx=struct.unpack_from('<HHH',d,0x3a)
secs=[]
for i in range(shnum):
    name,typ,flags,addr,off,size=struct.unpack_from('<IIQQQQ',d,shoff+i*shentsize)
    secs.append((name,typ,off,size))
stroff=secs[shstrndx][2]
keep={b'.eh_frame',b'.eh_frame_hdr',b'.debug_frame',b'.symtab',b'.strtab',b'.shstrtab',b'.note.gnu.build-id'}
for name,typ,off,size in secs:
    n=bytes(d[stroff+name:d.index(0,stroff+name)])
    if typ==8 or n in keep or size==0: continue  # NOBITS
    d[off:off+size]=bytes(size)
open(dst,'wb').write(d)
