import { extractPaths } from './path.extractor';

const values = (text: string) => extractPaths(text).map((p) => p.value);

describe('extractPaths', () => {
  it('finds relative and absolute paths and bare file names', () => {
    expect(values('read ./docs/README.md, then /etc/hosts and notes.txt')).toEqual(['./docs/README.md', '/etc/hosts', 'notes.txt']);
  });

  it('reads folders named in words or with a trailing slash', () => {
    expect(extractPaths('list the reports folder')).toEqual([expect.objectContaining({ value: 'reports', folder: true })]);
    expect(extractPaths('recursively list docs/')).toEqual([expect.objectContaining({ value: 'docs/', folder: true })]);
  });

  it('does not take measures in compound units for paths, but keeps paths whose parts only look like units', () => {
    expect(values('a heat capacity of 5J/K at 9.8m/s^2 in meters/second and kg/m3')).toEqual([]);
    expect(values('open data/in/report.csv and logs/s')).toEqual(['data/in/report.csv', 'logs/s']);
    expect(values('from Washington D.C. to the U.S. border, e.g. now')).toEqual([]);
    expect(values('the docket 2022/AL2562 and the US/EU pair')).toEqual([]);
  });

  it('keeps a drive letter and a home folder as part of the path, with either slash', () => {
    expect(values('load C:/data/cars.csv and D:\\reports\\q1.xlsx, then ~/scans/brain.nii')).toEqual(['C:/data/cars.csv', 'D:\\reports\\q1.xlsx', '~/scans/brain.nii']);
    expect(values('Note: the ratio is 3:2 and/or 4:5')).toEqual([]);
  });

  it('does not take numbers, speeds, abbreviations or host names for paths', () => {
    expect(values('3.5 kg at 100 km/h, e.g. 1.2.3 on example.com')).toEqual([]);
  });
});
