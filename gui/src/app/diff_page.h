// Side-by-side diff of two compiles: for each artifact kind (graphs, guards, output code, ...)
// a line diff shown in two code views that scroll together, changed lines coloured.
#pragma once

#include "gui/index_types.h"

#include <QWidget>

class QLabel;
class QListWidget;

namespace gui {

class CodeView;

class DiffPage : public QWidget {
  Q_OBJECT
public:
  explicit DiffPage(QWidget* parent = nullptr);

  void clear();
  void setDiff(const CompileDiff& diff);
  // Shows one artifact pair by its position in the list.
  void showPair(int index);

  const CompileDiff& diff() const { return diff_; }
  // The pair shown (null when none): its rows came from the worker thread with the diff.
  const ArtifactPair* currentPair() const;
  QListWidget* pairList() const { return list_; }
  CodeView* leftView() const { return left_; }
  CodeView* rightView() const { return right_; }

private:
  CompileDiff diff_;
  int current_ = -1;
  QLabel* title_;
  QListWidget* list_;
  CodeView* left_;
  CodeView* right_;
};

} // namespace gui
