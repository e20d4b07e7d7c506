interpreted

