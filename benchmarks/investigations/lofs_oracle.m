% Runs LOFS's own selectors (github.com/kuiy/LOFS, LOFS_Matlab) on LOFS's
% example data and two of ours, and prints one line per run:
%   name<TAB>selected features (1-based, in LOFS's order)
% Usage (Octave 7): octave-cli benchmarks/investigations/lofs_oracle.m LOFS_REPO DATA_DIR [differ]
% (without `differ`: the runs of tests/data/lofs/oracle.tsv; with it: those of
% oracle_differ.tsv, the runs where evofeat's variant="lofs" and variant="textbook"
% select differently, chosen by `lofs_exactness.py --candidates` before LOFS ran them)
% (LOFS_REPO: a checkout of github.com/kuiy/LOFS, holding LOFS_Matlab and LOFS_Octave)
% DATA_DIR holds wdbc_ours.csv and colon300_codes.csv, written by
% `python benchmarks/investigations/lofs_exactness.py --export DATA_DIR`.
1;  % a script, not a function file
function show(name, sel)
  printf('%s\t%s\n', name, strtrim(sprintf('%d ', sel)));
  fflush(stdout);
end
function sel = evalc_sel(f)
  % call f() with LOFS's progress prints silenced; return its first output
  evalc('sel = f();');
end
args = argv();
lofs = args{1}; datadir = args{2};
addpath(genpath(fullfile(lofs, 'LOFS_Matlab')));
% LOFS_Matlab's norminv needs distchck, which only LOFS_Octave ships; put it last on the path
addpath(fullfile(lofs, 'LOFS_Octave', 'source_codes'), '-end');
load(fullfile(lofs, 'LOFS_Matlab', 'data', 'spect.mat'));   % 267 x 23, values 1..2, class in column 23
load(fullfile(lofs, 'LOFS_Matlab', 'data', 'wdbc.mat'));    % 569 x 31, raw, class 0/1 in column 31
colon = csvread(fullfile(datadir, 'colon300_codes.csv'));
if numel(args) < 3
for rows = {267, 150, 80}
  r = rows{1}; d = spect(1:r, :);
  for test = {'g2', 'chi2'}
    for alpha = [0.01, 0.05]
      t = test{1};
      show(sprintf('spect%d/osfs_d/%s/%g', r, t, alpha), evalc_sel(@() osfs_d(d, 23, alpha, t)));
      show(sprintf('spect%d/fast_osfs_d/%s/%g', r, t, alpha), evalc_sel(@() fast_osfs_d(d, 23, alpha, t)));
    end
  end
end
for test = {'g2', 'chi2'}
  t = test{1};
  show(sprintf('colon300/osfs_d/%s/0.05', t), evalc_sel(@() osfs_d(colon, 301, 0.05, t)));
  show(sprintf('colon300/fast_osfs_d/%s/0.05', t), evalc_sel(@() fast_osfs_d(colon, 301, 0.05, t)));
end
show('wdbc/alpha_investing', evalc_sel(@() Alpha_Investing(wdbc(:, 1:30), wdbc(:, 31))));
for alpha = [0.01, 0.05]
  show(sprintf('wdbc/osfs_z/%g', alpha), evalc_sel(@() osfs_z(wdbc, 31, alpha)));
  show(sprintf('wdbc/fast_osfs_z/%g', alpha), evalc_sel(@() fast_osfs_z(wdbc, 31, alpha)));
  show(sprintf('wdbc/saola_z_test/%g', alpha), evalc_sel(@() saola_z_test(wdbc, alpha)));
end
else  % differ
% Alpha-investing: LOFS's exp p-value and untested first column against the chi2 tail
for r = [267, 150, 80]
  show(sprintf('spect%d/alpha_investing', r), evalc_sel(@() Alpha_Investing(spect(1:r, 1:22), spect(1:r, 23))));
end
for r = [100, 200, 300]
  show(sprintf('wdbc%d/alpha_investing', r), evalc_sel(@() Alpha_Investing(wdbc(1:r, 1:30), wdbc(1:r, 31))));
end
show('colon300/alpha_investing', evalc_sel(@() Alpha_Investing(colon(:, 1:300), colon(:, 301))));
% OSFS / Fast-OSFS with LOFS's chi2 (continuity rule, column-maximum levels, n < 5 df untested)
for r = [200, 50]
  d = spect(1:r, :);
  show(sprintf('spect%d/osfs_d/chi2/0.05', r), evalc_sel(@() osfs_d(d, 23, 0.05, 'chi2')));
  show(sprintf('spect%d/fast_osfs_d/chi2/0.05', r), evalc_sel(@() fast_osfs_d(d, 23, 0.05, 'chi2')));
end
for alpha = [0.01, 0.05]
  show(sprintf('spect100/fast_osfs_d/chi2/%g', alpha), evalc_sel(@() fast_osfs_d(spect(1:100, :), 23, alpha, 'chi2')));
end
show('colon300/osfs_d/chi2/0.01', evalc_sel(@() osfs_d(colon, 301, 0.01, 'chi2')));
show('colon300/fast_osfs_d/chi2/0.01', evalc_sel(@() fast_osfs_d(colon, 301, 0.01, 'chi2')));
end
