import string
HEADER = '== {title} =='
print(HEADER.format(title='report'))
print(string.Template('$who likes $what').substitute(who='tim', what='pie'))
